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

/**
 * Removes `<memory-context>` spans from streamed model output, where the opening and closing tags
 * may arrive in different deltas. `feed` returns what is safe to show and holds back a tail that
 * could still turn into a tag; `flush` ends the stream (emitting the held tail, or dropping it when
 * a span never closed); `reset` prepares for the next response.
 *
 * An opening tag only counts when it starts a block — at the start of a line (after whitespace
 * only) and followed by a newline — so a model that merely mentions the tag inline is not
 * censored. Inside a span every opener nests, so provider text cannot close the fence early.
 */
export class StreamingContextScrubber {
  private held = '';
  private depth = 0;
  private atLineStart = true;

  /** True while inside a span (its content is being discarded). */
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
        if (lt < 0) return out;
        const m = matchTag(s, lt);
        if (m === 'partial') {
          this.held = s.slice(lt);
          return out;
        }
        if (m === null) {
          i = lt + 1;
          continue;
        }
        this.depth += m.closing ? -1 : 1;
        i = m.end;
        continue;
      }
      if (lt < 0) {
        out += this.emit(s.slice(i));
        return out;
      }
      out += this.emit(s.slice(i, lt));
      const m = matchTag(s, lt);
      if (m === 'partial') {
        this.held = s.slice(lt);
        return out;
      }
      if (m === null) {
        out += this.emit('<');
        i = lt + 1;
        continue;
      }
      if (m.closing) {
        // A stray closer outside any span: drop the tag, keep the prose around it.
        i = m.end;
        continue;
      }
      if (!this.atLineStart) {
        out += this.emit(s.slice(lt, m.end));
        i = m.end;
        continue;
      }
      let k = m.end;
      while (k < s.length && k - m.end <= MAX_TAG_PADDING && (s[k] === ' ' || s[k] === '\t')) k++;
      if (k >= s.length && k - m.end <= MAX_TAG_PADDING) {
        // Whether this opener starts a block depends on the next character: wait for it.
        this.held = s.slice(lt);
        return out;
      }
      if (s[k] === '\n' || s[k] === '\r') {
        this.depth = 1;
        i = s[k] === '\r' && s[k + 1] === '\n' ? k + 2 : k + 1;
        continue;
      }
      out += this.emit(s.slice(lt, m.end));
      i = m.end;
    }
    return out;
  }

  /** End of stream: the held tail is emitted, or discarded if a span is still open. Then resets. */
  flush(): string {
    const tail = this.depth > 0 ? '' : this.held;
    this.reset();
    return tail;
  }

  reset(): void {
    this.held = '';
    this.depth = 0;
    this.atLineStart = true;
  }

  private emit(text: string): string {
    if (!text) return text;
    const nl = Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r'));
    const after = nl >= 0 ? text.slice(nl + 1) : text;
    const blank = /^[ \t]*$/.test(after);
    this.atLineStart = nl >= 0 ? blank : this.atLineStart && blank;
    return text;
  }
}
