import { SettingsError, UnsupportedFeatureError } from '@hermes-memory/core';
import { PUNCT, SPACE, isBertControl, isBertWhitespace, isCjk, splitClass } from './char-classes';

/** Settings of a BERT WordPiece tokenizer (the subset of `tokenizer.json` Model2Vec models use). */
export interface WordPieceTokenizerOptions {
  /** Token strings in id order. */
  vocab: readonly string[];
  unkToken?: string;
  continuingSubwordPrefix?: string;
  /** Words longer than this many characters become the unknown token. Default 100. */
  maxInputCharsPerWord?: number;
  lowercase?: boolean;
  /** Default: same as `lowercase` (the BertNormalizer rule when the setting is null). */
  stripAccents?: boolean;
  cleanText?: boolean;
  handleChineseChars?: boolean;
  /** Added tokens matched verbatim in the raw text before normalisation (e.g. `[CLS]`). */
  specialTokens?: readonly string[];
}

/** A growable list of token ids that is reused across calls to avoid per-text allocation. */
export class IdBuffer {
  ids: Int32Array;
  length = 0;

  constructor(capacity = 256) {
    this.ids = new Int32Array(capacity);
  }

  push(id: number): void {
    if (this.length === this.ids.length) {
      const next = new Int32Array(this.ids.length * 2);
      next.set(this.ids);
      this.ids = next;
    }
    this.ids[this.length++] = id;
  }

  clear(): void {
    this.length = 0;
  }
}

const WORD_CACHE_LIMIT = 50_000;
const EMPTY_IDS = new Int32Array(0);

/**
 * BERT tokenization as Hugging Face `tokenizers` does it for `BertNormalizer` + `BertPreTokenizer` +
 * `WordPiece`, without special tokens around the sequence: clean text, pad CJK ideographs, strip
 * accents, lowercase, split on whitespace and punctuation, then greedy longest-match WordPiece with
 * `##` continuations (a word that cannot be covered becomes `[UNK]` as a whole).
 */
export class WordPieceTokenizer {
  readonly unkId: number;
  readonly vocabSize: number;
  private readonly vocab: Map<string, number>;
  private readonly tokens: readonly string[];
  private readonly prefix: string;
  private readonly maxChars: number;
  private readonly lowercase: boolean;
  private readonly stripAccents: boolean;
  private readonly cleanText: boolean;
  private readonly handleChineseChars: boolean;
  private readonly specials: readonly { text: string; id: number }[];
  /** Longest vocabulary entry in UTF-16 units, prefix excluded: bounds the longest-match search. */
  private readonly maxPieceLength: number;
  /** Words that are not whole vocabulary entries, with their WordPiece split. */
  private readonly pieceCache = new Map<string, Int32Array>();
  private readonly scratch = new IdBuffer(64);

  constructor(options: WordPieceTokenizerOptions) {
    const vocab = new Map<string, number>();
    options.vocab.forEach((token, id) => {
      if (!vocab.has(token)) vocab.set(token, id);
    });
    this.vocab = vocab;
    this.tokens = options.vocab;
    this.vocabSize = options.vocab.length;
    this.prefix = options.continuingSubwordPrefix ?? '##';
    const unk = options.unkToken ?? '[UNK]';
    const unkId = vocab.get(unk);
    if (unkId === undefined)
      throw new SettingsError('tokenizer', `Unknown token '${unk}' is not in the vocabulary`);
    this.unkId = unkId;
    this.maxChars = options.maxInputCharsPerWord ?? 100;
    this.lowercase = options.lowercase ?? true;
    this.stripAccents = options.stripAccents ?? this.lowercase;
    this.cleanText = options.cleanText ?? true;
    this.handleChineseChars = options.handleChineseChars ?? true;
    this.specials = (options.specialTokens ?? [])
      .map((text) => ({ text, id: vocab.get(text) }))
      .filter((s): s is { text: string; id: number } => s.id !== undefined && s.text.length > 0)
      .sort((a, b) => b.text.length - a.text.length);
    let maxLen = 1;
    for (const token of options.vocab) {
      const len = token.startsWith(this.prefix) ? token.length - this.prefix.length : token.length;
      if (len > maxLen) maxLen = len;
    }
    this.maxPieceLength = maxLen;
  }

  /**
   * Builds a tokenizer from a parsed Hugging Face `tokenizer.json`. Only the BERT WordPiece family
   * is supported; anything else gets a clear error instead of silently wrong vectors.
   */
  static fromTokenizerJson(json: unknown): WordPieceTokenizer {
    const root = asRecord(json, 'tokenizer.json');
    const model = asRecord(root['model'], 'tokenizer.json model');
    if (model['type'] !== 'WordPiece') {
      throw new UnsupportedFeatureError(
        'embeddings',
        `tokenizer model '${String(model['type'])}'`,
        `Only WordPiece tokenizers are supported (tokenizer.json model.type is '${String(model['type'])}').`,
      );
    }
    const vocabRecord = asRecord(model['vocab'], 'tokenizer.json model.vocab');
    const entries = Object.entries(vocabRecord);
    const vocab: string[] = new Array(entries.length);
    for (const [token, id] of entries) {
      if (
        typeof id !== 'number' ||
        !Number.isInteger(id) ||
        id < 0 ||
        id >= entries.length ||
        vocab[id] !== undefined
      ) {
        throw new SettingsError(
          'tokenizer',
          `tokenizer.json vocab ids must be the contiguous range 0..${entries.length - 1}`,
        );
      }
      vocab[id] = token;
    }
    const normalizer =
      root['normalizer'] == null ? undefined : asRecord(root['normalizer'], 'tokenizer.json normalizer');
    if (normalizer && normalizer['type'] !== 'BertNormalizer') {
      throw new UnsupportedFeatureError(
        'embeddings',
        `normalizer '${String(normalizer['type'])}'`,
        `Only the BertNormalizer is supported (tokenizer.json normalizer.type is '${String(normalizer['type'])}').`,
      );
    }
    const pre =
      root['pre_tokenizer'] == null
        ? undefined
        : asRecord(root['pre_tokenizer'], 'tokenizer.json pre_tokenizer');
    if (pre?.['type'] !== 'BertPreTokenizer') {
      throw new UnsupportedFeatureError(
        'embeddings',
        `pre-tokenizer '${String(pre?.['type'])}'`,
        `Only the BertPreTokenizer is supported (tokenizer.json pre_tokenizer.type is '${String(pre?.['type'])}').`,
      );
    }
    const added = Array.isArray(root['added_tokens']) ? (root['added_tokens'] as unknown[]) : [];
    const specialTokens = added
      .map((t) => (t && typeof t === 'object' ? (t as Record<string, unknown>)['content'] : undefined))
      .filter((t): t is string => typeof t === 'string');
    const lowercase = normalizer ? normalizer['lowercase'] !== false : false;
    const strip = normalizer?.['strip_accents'];
    return new WordPieceTokenizer({
      vocab,
      unkToken: typeof model['unk_token'] === 'string' ? model['unk_token'] : '[UNK]',
      continuingSubwordPrefix:
        typeof model['continuing_subword_prefix'] === 'string' ? model['continuing_subword_prefix'] : '##',
      maxInputCharsPerWord:
        typeof model['max_input_chars_per_word'] === 'number' ? model['max_input_chars_per_word'] : 100,
      lowercase,
      stripAccents: typeof strip === 'boolean' ? strip : lowercase,
      cleanText: normalizer ? normalizer['clean_text'] !== false : false,
      handleChineseChars: normalizer ? normalizer['handle_chinese_chars'] !== false : false,
      specialTokens,
    });
  }

  /** Token ids of `text` (unknown words included as `unkId`), without [CLS]/[SEP]. */
  encode(text: string): number[] {
    const out = new IdBuffer(Math.max(16, text.length >> 2));
    this.encodeInto(text, out);
    return Array.from(out.ids.subarray(0, out.length));
  }

  /** Token strings of `text`, for inspection and tests. */
  tokenize(text: string): string[] {
    return this.encode(text).map((id) => this.tokens[id]!);
  }

  /** The token string of an id. */
  tokenOf(id: number): string | undefined {
    return this.tokens[id];
  }

  /** Id of a token string, if it is in the vocabulary. */
  idOf(token: string): number | undefined {
    return this.vocab.get(token);
  }

  /** Appends the ids of `text` to `out` (hot path: no per-token allocation for known words). */
  encodeInto(text: string, out: IdBuffer): void {
    if (this.specials.length > 0 && text.includes('[')) {
      this.encodeWithSpecials(text, out);
      return;
    }
    this.encodeSegment(text, out);
  }

  /** The normalised text (BertNormalizer), exposed for tests and debugging. */
  normalize(text: string): string {
    return isPlainAscii(text) ? (this.lowercase ? text.toLowerCase() : text) : this.normalizeSlow(text);
  }

  private encodeWithSpecials(text: string, out: IdBuffer): void {
    let segmentStart = 0;
    let i = text.indexOf('[');
    while (i >= 0) {
      let matched: { text: string; id: number } | undefined;
      for (const special of this.specials) {
        if (text.startsWith(special.text, i)) {
          matched = special;
          break;
        }
      }
      if (matched) {
        if (i > segmentStart) this.encodeSegment(text.slice(segmentStart, i), out);
        out.push(matched.id);
        segmentStart = i + matched.text.length;
        i = text.indexOf('[', segmentStart);
      } else {
        i = text.indexOf('[', i + 1);
      }
    }
    if (segmentStart < text.length) this.encodeSegment(text.slice(segmentStart), out);
  }

  private encodeSegment(text: string, out: IdBuffer): void {
    const s = this.normalize(text);
    let start = -1;
    const n = s.length;
    for (let i = 0; i < n; i++) {
      let cp = s.charCodeAt(i);
      let width = 1;
      if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < n) {
        const lo = s.charCodeAt(i + 1);
        if (lo >= 0xdc00 && lo <= 0xdfff) {
          cp = ((cp - 0xd800) << 10) + (lo - 0xdc00) + 0x10000;
          width = 2;
        }
      }
      const cls = splitClass(cp);
      if (cls === SPACE || cls === PUNCT) {
        if (start >= 0) {
          this.encodeWord(s.substring(start, i), out);
          start = -1;
        }
        if (cls === PUNCT) this.encodeWord(s.substring(i, i + width), out);
      } else if (start < 0) {
        start = i;
      }
      i += width - 1;
    }
    if (start >= 0) this.encodeWord(start === 0 ? s : s.substring(start), out);
  }

  private encodeWord(word: string, out: IdBuffer): void {
    if (word.length > this.maxChars && countCodePoints(word) > this.maxChars) {
      out.push(this.unkId);
      return;
    }
    const whole = this.vocab.get(word);
    if (whole !== undefined) {
      out.push(whole);
      return;
    }
    let pieces = this.pieceCache.get(word);
    if (pieces === undefined) {
      pieces = this.wordPiece(word);
      if (this.pieceCache.size >= WORD_CACHE_LIMIT) this.pieceCache.clear();
      this.pieceCache.set(word, pieces);
    }
    for (let k = 0; k < pieces.length; k++) out.push(pieces[k]!);
  }

  /** Greedy longest-match-first split of one word. */
  private wordPiece(word: string): Int32Array {
    const found = this.scratch;
    found.clear();
    const n = word.length;
    let start = 0;
    while (start < n) {
      let end = Math.min(n, start + this.maxPieceLength);
      let id: number | undefined;
      while (end > start) {
        const piece = start === 0 ? word.slice(0, end) : this.prefix + word.slice(start, end);
        id = this.vocab.get(piece);
        if (id !== undefined) break;
        end--;
      }
      if (id === undefined) {
        const unk = new Int32Array(1);
        unk[0] = this.unkId;
        return unk;
      }
      found.push(id);
      start = end;
    }
    return found.length === 0 ? EMPTY_IDS : found.ids.slice(0, found.length);
  }

  private normalizeSlow(text: string): string {
    let s = text;
    if (this.cleanText || this.handleChineseChars) {
      const parts: string[] = [];
      for (const ch of text) {
        const cp = ch.codePointAt(0)!;
        if (this.cleanText) {
          if (isBertControl(cp)) continue;
          if (isBertWhitespace(cp)) {
            parts.push(' ');
            continue;
          }
        }
        if (this.handleChineseChars && isCjk(cp)) parts.push(' ', ch, ' ');
        else parts.push(ch);
      }
      s = parts.join('');
    }
    if (this.stripAccents) s = s.normalize('NFD').replace(/\p{Mn}/gu, '');
    // Lowercase character by character like the reference (no context-dependent final sigma).
    if (this.lowercase) s = s.replace(/\u03a3/g, '\u03c3').toLowerCase();
    return s;
  }
}

/** Printable ASCII plus tab/newline/CR: normalisation is just lowercasing. */
function isPlainAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 127 || (c < 32 && c !== 9 && c !== 10 && c !== 13)) return false;
  }
  return true;
}

function countCodePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
    else if (i + 1 < s.length) {
      const lo = s.charCodeAt(i + 1);
      n++;
      if (lo >= 0xdc00 && lo <= 0xdfff) i++;
    } else n++;
  }
  return n;
}

function asRecord(value: unknown, what: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new SettingsError('tokenizer', `${what} must be an object`);
  }
  return value as Record<string, unknown>;
}
