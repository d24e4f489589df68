import { MAX_TAG_PADDING } from './sanitize';

const TAG_NAME = 'memory-context';

type TagMatch = { closing: boolean; end: number } | 'partial' | null;

function isSpace(ch: string | undefined): boolean {
  return ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || ch === '\f' || ch === '\v';
}

/**
 * Classify the text at `s[start]` (a "<"): a complete fence tag, a prefix that could still become
 * one (`partial`), or not a tag (null). Grammar: "<" ws* ["/" ws*] "memory-context" ws* ">",
 * case-insensitive, each ws run at most MAX_TAG_PADDING long.
 */
function matchTag(s: string, start: number): TagMatch {
  let pos = start + 1;
  const skip = (): 'ok' | 'partial' | 'over' => {
    let n = 0;
    while (pos < s.length && isSpace(s[pos])) {
      if (++n > MAX_TAG_PADDING) return 'over';
      pos++;
    }
    return pos >= s.length ? 'partial' : 'ok';
  };
  let r = skip();
  if (r !== 'ok') return r === 'partial' ? 'partial' : null;
  let closing = false;
  if (s[pos] === '/') {
    closing = true;
    pos++;
    r = skip();
    if (r !== 'ok') return r === 'partial' ? 'partial' : null;
  }
  for (const expected of TAG_NAME) {
    if (pos >= s.length) return 'partial';
    if (s[pos]!.toLowerCase() !== expected) return null;
    pos++;
  }
  r = skip();
  if (r !== 'ok') return r === 'partial' ? 'partial' : null;
  return s[pos] === '>' ? { closing, end: pos + 1 } : null;
}

/** What a span must start with (after whitespace) to be our recall block: the system note. */
const NOTE_PREFIX = '[system note:';
/** A span without the note that grows past this is prose that merely mentions the tag: shown. */
const MAX_PENDING = 32_768;

/**
 * Removes `<memory-context>` spans from streamed model output, where the opening and closing tags
 * may arrive in different deltas. `feed` returns what is safe to show and holds back what is not
 * decided yet; `flush` ends the stream; `reset` prepares for the next response.
 *
 * - An opener counts when the rest of its line is empty (the block's own shape), wherever the line
 *   started — so a block the model glued to the end of a sentence is removed too, while an inline
 *   mention ("Use the <memory-context> tag …") is left alone.
 * - Inside a span only tags at the start of a line count: a closer (or opener) in the middle of a
 *   line — forged text inside recalled memory — neither ends the span nor nests.
 * - A span that begins with the system note is our recall block: removed, and dropped at `flush`
 *   if it never closed. A span without the note is held back until its closer (then removed, as
 *   the reference does); if the stream ends first, it was prose, and it is shown at `flush` —
 *   an opener at the start of a line never hides the rest of an answer.
 */
export class StreamingContextScrubber {
  private held = '';
  private depth = 0;
  /** Raw text of an open span not yet known to be a recall block (null once the note was seen). */
  private pending: string | null = null;
  /** Where the span's body starts in `pending` (after the opener's line). */
  private bodyStart = 0;
  private noteDecided = false;
  private spanLineStart = true;

  /** True while inside a span (its content is withheld). */
  get inSpan(): boolean {
    return this.depth > 0;
  }

  feed(delta: string): string {
    if (!delta) return '';
    const s = this.held + delta;
    this.held = '';
    let out = '';
    let i = 0;
    while (i < s.length) {
      const lt = s.indexOf('<', i);
      if (this.depth > 0) {
        const upto = lt < 0 ? s.length : lt;
        this.consume(s.slice(i, upto));
        i = upto;
        if (lt >= 0) {
          const m = matchTag(s, lt);
          if (m === 'partial') {
            this.held = s.slice(lt);
            return out;
          }
          if (m === null) {
            this.consume('<');
            i = lt + 1;
          } else if (!this.spanLineStart) {
            this.consume(s.slice(lt, m.end));
            i = m.end;
          } else if (m.closing) {
            this.consume(s.slice(lt, m.end));
            i = m.end;
            if (--this.depth === 0) this.closeSpan();
          } else {
            const next = blockStart(s, m.end);
            if (next === 'partial') {
              this.held = s.slice(lt);
              return out;
            }
            if (next !== null) this.depth++;
            const stop = next ?? m.end;
            this.consume(s.slice(lt, stop));
            i = stop;
          }
        }
        if (this.pending !== null && this.pending.length > MAX_PENDING) out += this.release();
        continue;
      }
      if (lt < 0) return out + s.slice(i);
      out += s.slice(i, lt);
      const m = matchTag(s, lt);
      if (m === 'partial') {
        this.held = s.slice(lt);
        return out;
      }
      if (m === null) {
        out += '<';
        i = lt + 1;
        continue;
      }
      if (m.closing) {
        // A stray closer outside any span: drop the tag, keep the prose around it.
        i = m.end;
        continue;
      }
      const next = blockStart(s, m.end);
      if (next === 'partial') {
        // Whether this opener starts a block depends on what follows it on its line: wait.
        this.held = s.slice(lt);
        return out;
      }
      if (next === null) {
        out += s.slice(lt, m.end);
        i = m.end;
        continue;
      }
      this.depth = 1;
      this.pending = s.slice(lt, next);
      this.bodyStart = this.pending.length;
      this.noteDecided = false;
      this.spanLineStart = true;
      i = next;
    }
    return out;
  }

  /**
   * End of stream. The held tail is emitted; an unclosed span is dropped if it is a recall block
   * (it began with the system note) and shown otherwise. Then resets.
   */
  flush(): string {
    const tail = this.depth === 0 ? this.held : this.pending === null ? '' : this.pending + this.held;
    this.reset();
    return tail;
  }

  reset(): void {
    this.held = '';
    this.depth = 0;
    this.pending = null;
    this.bodyStart = 0;
    this.noteDecided = false;
    this.spanLineStart = true;
  }

  /** Withhold `text` inside a span: remember it while undecided, track line starts, spot the note. */
  private consume(text: string): void {
    if (!text) return;
    const nl = Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r'));
    const after = nl >= 0 ? text.slice(nl + 1) : text;
    const blank = /^[ \t]*$/.test(after);
    this.spanLineStart = nl >= 0 ? blank : this.spanLineStart && blank;
    if (this.pending === null) return;
    this.pending += text;
    if (this.noteDecided) return;
    const probe = this.pending
      .slice(this.bodyStart)
      .trimStart()
      .slice(0, 40)
      .replace(/\s+/g, ' ')
      .toLowerCase();
    if (probe === '') return;
    if (probe.startsWith(NOTE_PREFIX)) {
      this.pending = null; // our recall block: nothing of it will ever be shown
      this.noteDecided = true;
    } else if (!NOTE_PREFIX.startsWith(probe)) {
      this.noteDecided = true;
    }
  }

  private closeSpan(): void {
    this.pending = null;
    this.noteDecided = false;
    this.spanLineStart = true;
  }

  /** Give up on an over-long span without the note: show it as the prose it is. */
  private release(): string {
    const text = this.pending ?? '';
    this.depth = 0;
    this.closeSpan();
    return text;
  }
}

/**
 * Where a block starting with the opener that ends at `end` continues: just past the newline that
 * ends the opener's line, null when more text follows on that line, 'partial' when undecided yet.
 */
function blockStart(s: string, end: number): number | null | 'partial' {
  let k = end;
  while (k < s.length && k - end <= MAX_TAG_PADDING && (s[k] === ' ' || s[k] === '\t')) k++;
  if (k >= s.length) return k - end <= MAX_TAG_PADDING ? 'partial' : null;
  if (s[k] === '\r') return s[k + 1] === '\n' ? k + 2 : k + 1 < s.length ? k + 1 : 'partial';
  return s[k] === '\n' ? k + 1 : null;
}
