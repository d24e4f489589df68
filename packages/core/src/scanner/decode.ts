/**
 * Readings of encoded text, for inspection only (the stored text is never changed): what a model
 * would read if it decoded the obvious encodings itself. Only decodings that come out as readable
 * text are kept, so hashes, ids and binary blobs add nothing. Every scan here is linear and the
 * total decoded size is bounded.
 */

/** At most this many encoded runs are decoded per text, and at most this many characters in all. */
const MAX_RUNS = 64;
const MAX_DECODED = 16_384;

const BASE64_RUN = /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/=_-])/g;
const HEX_RUN = /(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){8,}(?![0-9A-Fa-f])/g;
const HEX_ESCAPES = /(?:\\x[0-9A-Fa-f]{2}){4,}/g;
const HEX_SEPARATED =
  /(?<![0-9A-Fa-fx])(?:(?:0x)?[0-9A-Fa-f]{2}[ ,:-]{1,2}){5,}(?:0x)?[0-9A-Fa-f]{2}(?![0-9A-Fa-f])/g;
const PERCENT = /%[0-9A-Fa-f]{2}/g;
const ENTITY = /&(?:#(\d{1,7})|#[xX]([0-9A-Fa-f]{1,6})|(lt|gt|amp|quot|apos|nbsp));/g;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Readable text: decodes as UTF-8, mostly printable, with letters and some word breaks. */
function readable(bytes: Uint8Array): string | null {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return null;
  }
  if (text.length < 6) return null;
  let printable = 0;
  let letters = 0;
  let breaks = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (c === 9 || c === 10 || c === 13 || (c >= 32 && c !== 127 && !(c >= 0x80 && c < 0xa0))) printable++;
    if (/\p{L}/u.test(ch)) letters++;
    if (c === 32 || c === 10 || c === 47 || c === 46) breaks++;
  }
  const n = [...text].length;
  if (printable < n * 0.95 || letters < n * 0.5 || breaks === 0) return null;
  return text;
}

function fromBase64(run: string): string | null {
  const clean = run.replace(/-/g, '+').replace(/_/g, '/');
  // Plain words and identifiers are not base64 payloads: require the mix an encoder produces.
  if (!/[A-Z]/.test(clean) || !/[a-z]/.test(clean)) return null;
  return readable(Buffer.from(clean, 'base64'));
}

function fromHex(run: string): string | null {
  const digits = run.replace(/0x|\\x|[^0-9A-Fa-f]/g, '');
  if (digits.length % 2 !== 0) return null;
  return readable(Buffer.from(digits, 'hex'));
}

function collect(text: string, pattern: RegExp, decode: (run: string) => string | null, out: string[]): void {
  let budget = MAX_RUNS;
  for (const m of text.matchAll(pattern)) {
    if (--budget < 0) return;
    const decoded = decode(m[0]);
    if (decoded) out.push(decoded);
  }
}

/** Decoded base64, hex and percent/entity-encoded content of `text` (each decoding once). */
export function decodedReadings(text: string): string[] {
  const out: string[] = [];
  collect(text, BASE64_RUN, fromBase64, out);
  collect(text, HEX_RUN, fromHex, out);
  if (text.includes('\\x')) collect(text, HEX_ESCAPES, fromHex, out);
  collect(text, HEX_SEPARATED, fromHex, out);
  if ((text.match(PERCENT)?.length ?? 0) >= 4) {
    try {
      out.push(decodeURIComponent(text.replace(/%(?![0-9A-Fa-f]{2})/g, '%25')));
    } catch {
      // a malformed escape: nothing readable to add
    }
  }
  if ((text.match(ENTITY)?.length ?? 0) >= 3) out.push(decodeEntities(text));
  const kept: string[] = [];
  let total = 0;
  for (const reading of out) {
    total += reading.length;
    if (total > MAX_DECODED) break;
    kept.push(reading);
  }
  return kept;
}

const NAMED: Readonly<Record<string, string>> = {
  lt: '<',
  gt: '>',
  amp: '&',
  quot: '"',
  apos: "'",
  nbsp: ' ',
};

function decodeEntities(text: string): string {
  return text.replace(
    ENTITY,
    (m, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
      const code = dec !== undefined ? Number(dec) : hex !== undefined ? Number.parseInt(hex, 16) : -1;
      if (code >= 0) return code <= 0x10ffff ? String.fromCodePoint(code) : m;
      return NAMED[name ?? ''] ?? m;
    },
  );
}

/** ROT13 of the Latin letters. */
export function rot13(text: string): string {
  return text.replace(/[A-Za-z]/g, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
}

/** The text read backwards, by code point. */
export function reversed(text: string): string {
  return Array.from(text).reverse().join('');
}

const TAG = /<\/?[A-Za-z][^<>\n]{0,100}>/g;
const INWORD_MARKUP = /(?<=\p{L})[*~`]{1,3}(?=\p{L})/gu;

/**
 * HTML comments removed, pairing each `<!--` with the next `-->` in one pass. (Their content is
 * already read as part of the text itself; removing them joins the words they were used to split.)
 */
function uncomment(text: string): string {
  if (!text.includes('<!--')) return text;
  let out = '';
  let pos = 0;
  for (let open = text.indexOf('<!--'); open >= 0; open = text.indexOf('<!--', pos)) {
    const close = text.indexOf('-->', open + 4);
    if (close < 0) break;
    out += text.slice(pos, open);
    pos = close + 3;
  }
  return out + text.slice(pos);
}

/**
 * The text with markup taken out of the way: HTML comments and tags dropped, emphasis marks inside
 * words removed ("ig<!-- -->nore", "ig<b></b>nore", "ig**no**re" all read "ignore").
 */
export function withoutMarkup(text: string): string {
  return uncomment(text).replace(TAG, '').replace(INWORD_MARKUP, '');
}
