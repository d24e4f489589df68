/**
 * Masks things that look like credentials so they never reach logs or third-party backends:
 * bearer tokens, well-known key prefixes, `key=value` assignments of secret-named variables and
 * URL userinfo. `data:` URLs pass through untouched (they are content, not secrets).
 *
 * A secret found once is masked wherever it occurs in the same hand-off: `API_KEY=abc…` teaches
 * the redactor that `abc…` is a secret, so a bare `abc…` later in the text (or, with
 * `redactSecretsDeep`, anywhere else in the same object) is masked too.
 */
const PATTERNS: RegExp[] = [
  /\b(sk|pk|rk)-[A-Za-z0-9_-]{16,}\b/g,
  /\b(sk-ant|sk-proj|sk-or)-[A-Za-z0-9_-]{10,}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}\b/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}\b/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{30,}\b/g,
  /\bhf_[A-Za-z0-9]{30,}\b/g,
  /\bglpat-[A-Za-z0-9_-]{20,}\b/g,
  /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
];

const BEARER = /\b(Bearer|Token|Basic)\s+([A-Za-z0-9._~+/=-]{8,})/gi;
const ASSIGNMENT =
  /\b([A-Za-z0-9_]*(?:API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)[A-Za-z0-9_]*)\s*([=:])\s*("?)([^\s"']{6,})\3/gi;
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^/\s:@]+):([^/\s@]+)@/gi;
/** `data:` URLs (inline images, files): content, never scanned or masked. */
const DATA_URL = /\bdata:[a-z0-9.+-]+\/[a-z0-9.+-]+(?:;[a-z0-9.+=-]+)*,[A-Za-z0-9+/=%._~!$&'()*,;:@-]*/gi;

/**
 * Values on the right of `API_KEY: …` that are clearly not secrets (type annotations,
 * placeholders, env references, already-masked text); masking them would corrupt code and prose.
 */
const NOT_A_SECRET =
  /^(?:\$|\{|<|%|process\.env|os\.environ|env\.|\[redacted\]|\*+$|x+$|(?:string|number|boolean|null|undefined|none|true|false|required|optional|changeme|placeholder)$)/i;

export const REDACTED = '[redacted]';

/** Split into alternating [text, data-url, text, …] segments; odd indexes are data URLs. */
function segments(text: string): string[] {
  const out: string[] = [];
  let last = 0;
  for (const m of text.matchAll(DATA_URL)) {
    const start = m.index ?? 0;
    out.push(text.slice(last, start), m[0]);
    last = start + m[0].length;
  }
  out.push(text.slice(last));
  return out;
}

/** Apply `fn` to the parts of `text` outside data URLs. */
function outsideDataUrls(text: string, fn: (part: string) => string): string {
  if (!text.includes('data:')) return fn(text);
  return segments(text)
    .map((part, i) => (i % 2 === 1 ? part : fn(part)))
    .join('');
}

/** Mask every pattern in `text` (no data URLs inside), reporting each masked value to `found`. */
function maskPatterns(text: string, found: Set<string>): string {
  let out = text.replace(BEARER, (_m, scheme: string, token: string) => {
    found.add(token);
    return `${scheme} ${REDACTED}`;
  });
  out = out.replace(ASSIGNMENT, (m, name: string, sep: string, quote: string, value: string) => {
    if (NOT_A_SECRET.test(value)) return m;
    found.add(value);
    return `${name}${sep}${quote}${REDACTED}${quote}`;
  });
  out = out.replace(URL_USERINFO, (_m, scheme: string, user: string, password: string) => {
    found.add(password);
    return `${scheme}${user}:${REDACTED}@`;
  });
  for (const pattern of PATTERNS) {
    out = out.replace(pattern, (m: string) => {
      found.add(m);
      return REDACTED;
    });
  }
  return out;
}

/**
 * Only values that look like credentials are masked wherever else they occur: long enough and not
 * a plain word, so a false positive on one line cannot spread through a whole transcript.
 */
function propagatable(secret: string): boolean {
  return secret.length >= 8 && !/^[A-Za-z]+$/.test(secret) && !secret.includes(REDACTED);
}

function maskKnown(text: string, known: readonly string[]): string {
  let out = text;
  for (const secret of known) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}

function sortedKnown(found: Iterable<string>): string[] {
  return [...new Set(found)].filter(propagatable).sort((a, b) => b.length - a.length);
}

/** The secret values `redactSecrets` would mask in `text` (outside data URLs). */
export function collectSecrets(text: string): string[] {
  const found = new Set<string>();
  if (text) outsideDataUrls(text, (part) => maskPatterns(part, found));
  return [...found];
}

/** Mask secrets in one string; a secret found anywhere in it is masked everywhere in it. */
export function redactSecrets(text: string): string {
  if (!text) return text;
  const found = new Set<string>();
  const masked = outsideDataUrls(text, (part) => maskPatterns(part, found));
  const known = sortedKnown(found);
  return known.length === 0 ? masked : outsideDataUrls(masked, (part) => maskKnown(part, known));
}

/**
 * Redact every string inside `value` (arrays and plain objects, recursively) as ONE hand-off: a
 * secret found in any string is masked in all of them. Returns a copy; `value` is never mutated.
 * Non-plain objects (class instances, typed arrays, dates) are passed through as they are.
 */
export function redactSecretsDeep<T>(value: T): T {
  const found = new Set<string>();
  const strings: string[] = [];
  walk(value, (s) => {
    strings.push(s);
    return s;
  });
  for (const s of strings) outsideDataUrls(s, (part) => maskPatterns(part, found));
  const known = sortedKnown(found);
  return walk(value, (s) => {
    const masked = outsideDataUrls(s, (part) => maskPatterns(part, new Set()));
    return known.length === 0 ? masked : outsideDataUrls(masked, (part) => maskKnown(part, known));
  });
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Copy `value`, mapping every string through `fn`; shared and cyclic references are preserved. */
function walk<T>(value: T, fn: (s: string) => string, seen = new Map<object, unknown>()): T {
  if (typeof value === 'string') return fn(value) as T;
  if (Array.isArray(value)) {
    const existing = seen.get(value);
    if (existing) return existing as T;
    const out: unknown[] = [];
    seen.set(value, out);
    for (const item of value) out.push(walk(item, fn, seen));
    return out as T;
  }
  if (isPlainObject(value)) {
    const existing = seen.get(value);
    if (existing) return existing as T;
    const out: Record<string, unknown> = Object.create(Object.getPrototypeOf(value));
    seen.set(value, out);
    for (const [k, v] of Object.entries(value)) out[k] = walk(v, fn, seen);
    return out as T;
  }
  return value;
}
