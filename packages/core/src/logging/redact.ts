/**
 * Masks things that look like credentials so they never reach logs or third-party backends:
 * bearer tokens, well-known key prefixes, `key=value` assignments of secret-named variables and
 * URL userinfo. `data:` URLs pass through untouched (they are content, not secrets).
 *
 * A secret found once is masked wherever it occurs in the same hand-off: `API_KEY=abc…` teaches
 * the redactor that `abc…` is a secret, so a bare `abc…` later in the text (or, with
 * `redactSecretsDeep`, anywhere else in the same object) is masked too.
 */
/**
 * Well-known credential shapes. Each starts with a look-behind that excludes its own token
 * characters, so a match can only begin where a token begins: every regex here runs in time
 * linear in the text, however long or repetitive (a 100 KB token included).
 */
const PATTERNS: RegExp[] = [
  /(?<![\w-])(?:sk|pk|rk)-[\w-]{15,}\w/g,
  /(?<![\w-])gh[pousr]_[A-Za-z0-9]{20,}(?!\w)/g,
  /(?<![\w-])github_pat_\w{20,}/g,
  /(?<![\w-])xox[abprs]-[A-Za-z0-9-]{9,}[A-Za-z0-9]/g,
  /(?<![\w-])AKIA[0-9A-Z]{16}(?!\w)/g,
  /(?<![\w-])AIza[\w-]{30,}/g,
  /(?<![\w-])hf_[A-Za-z0-9]{30,}(?!\w)/g,
  /(?<![\w-])glpat-[\w-]{20,}/g,
  /(?<![\w-])eyJ[\w-]{10,}\.[\w-]{10,}\.[\w-]{9,}\w/g,
];

const PEM_BEGIN = /-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----/g;
const PEM_END = /-----END [A-Z ]{0,40}PRIVATE KEY-----/g;

const BEARER = /(?<!\w)(Bearer|Token|Basic)[ \t]{1,16}([A-Za-z0-9._~+/=-]{8,})/gi;
/**
 * `name = value`, `name: value`, `"name": "value"` and `?name=value`: an identifier, an optional
 * closing quote, then `=` or `:`. Only the name and separator are matched; whether the name is
 * secret-ish and where its value ends are decided in code, so the scan stays linear.
 */
const ASSIGNMENT = /(?<![\w.-])([A-Za-z][\w.-]{0,63})["']?[ \t]{0,8}([=:])[ \t]{0,8}/g;
/** The longest quoted value read after a secret name. */
const MAX_QUOTED = 512;
/** `scheme://user:password@` and `scheme://token@`. */
const URL_USERINFO =
  /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]{0,31}:\/\/)([^/\s:@]{0,256})(?::([^/\s@]{1,256}))?@/gi;
/** `data:` URLs (inline images, files): content, never scanned or masked. */
const DATA_URL =
  /(?<![\w-])data:[a-z0-9.+-]{1,64}\/[a-z0-9.+-]{1,64}(?:;[a-z0-9.+=-]{1,64}){0,8},[A-Za-z0-9+/=%._~!$&'()*,;:@-]*/gi;

/**
 * Values on the right of `API_KEY: …` that are clearly not secrets (type annotations,
 * placeholders, env references, already-masked text); masking them would corrupt code and prose.
 */
const NOT_A_SECRET =
  /^(?:\$|\{|<|%|process\.env|os\.environ|env\.|\[redacted\]|\*+$|x+$|(?:string|number|boolean|null|undefined|none|true|false|required|optional|changeme|placeholder|bearer|basic|token|digest)$)/i;

/** Name parts that make a name secret on their own ("GITHUB_TOKEN", "x-auth", "db_pass"). */
const SECRET_WORDS = new Set([
  'token',
  'secret',
  'password',
  'passwd',
  'passphrase',
  'pass',
  'pwd',
  'credential',
  'credentials',
  'auth',
  'authorization',
  'apikey',
  'cookie',
]);
/** Words that make a following "key" secret ("api_key", "x-api-key", "secret_access_key"). */
const KEY_QUALIFIERS = new Set([
  'api',
  'access',
  'private',
  'secret',
  'client',
  'master',
  'signing',
  'encryption',
  'account',
  'subscription',
  'license',
]);
/** Query parameters that carry credentials although their name alone is generic. */
const QUERY_SECRETS = new Set(['key', 'sig', 'signature', 'x-amz-signature', 'x-amz-credential', 'code']);

/** Every secret name contains one of these (a cheap first test: most names are not secret). */
const SECRET_STEM = /key|token|secret|pass|pwd|credential|auth|cookie/i;

/** Whether an identifier names a credential: its LAST word is a secret word, or "key" after a qualifier. */
export function isSecretName(name: string): boolean {
  if (!SECRET_STEM.test(name)) return false;
  const parts = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[-_.]+/)
    .filter(Boolean);
  const last = parts[parts.length - 1];
  if (last === undefined) return false;
  if (SECRET_WORDS.has(last)) return true;
  if (/(?:token|secret|password|passwd|apikey)$/.test(last)) return true;
  return last === 'key' && parts.length > 1 && KEY_QUALIFIERS.has(parts[parts.length - 2]!);
}

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

/** PEM private keys, paired BEGIN → next END in one pass (a lazy `[\s\S]*?` is quadratic on many BEGINs). */
function maskPem(text: string, found: Set<string>): string {
  if (!text.includes('-----BEGIN ')) return text;
  let out = '';
  let pos = 0;
  PEM_BEGIN.lastIndex = 0;
  for (let begin = PEM_BEGIN.exec(text); begin; begin = PEM_BEGIN.exec(text)) {
    PEM_END.lastIndex = begin.index + begin[0].length;
    const end = PEM_END.exec(text);
    if (!end) break;
    const stop = end.index + end[0].length;
    found.add(text.slice(begin.index, stop));
    out += `${text.slice(pos, begin.index)}${REDACTED}`;
    pos = stop;
    PEM_BEGIN.lastIndex = stop;
  }
  return pos === 0 ? text : out + text.slice(pos);
}

/** Where the value starting at `at` ends, and where its text is: quoted (one line) or bare. */
function valueAt(
  text: string,
  at: number,
  inQuery: boolean,
): { start: number; end: number; next: number } | null {
  const q = text[at];
  if (q === '"' || q === "'") {
    const limit = Math.min(text.length, at + 1 + MAX_QUOTED + 1);
    for (let k = at + 1; k < limit; k++) {
      if (text[k] === q) return { start: at + 1, end: k, next: k + 1 };
      if (text[k] === '\n') return null;
    }
    return null;
  }
  let k = at;
  while (k < text.length && !/[\s"'<>]/.test(text[k]!) && !(inQuery && (text[k] === '&' || text[k] === '#')))
    k++;
  return { start: at, end: k, next: k };
}

/** Mask the values of secret-named assignments (see ASSIGNMENT). */
function maskAssignments(text: string, found: Set<string>): string {
  let out = '';
  let pos = 0;
  ASSIGNMENT.lastIndex = 0;
  for (let m = ASSIGNMENT.exec(text); m; m = ASSIGNMENT.exec(text)) {
    const name = m[1]!;
    const inQuery = m.index > 0 && (text[m.index - 1] === '?' || text[m.index - 1] === '&');
    const secret = isSecretName(name) || (inQuery && m[2] === '=' && QUERY_SECRETS.has(name.toLowerCase()));
    if (!secret) continue;
    const at = m.index + m[0].length;
    const v = valueAt(text, at, inQuery);
    if (!v) continue;
    const value = text.slice(v.start, v.end);
    if ((value.length < 6 && !(inQuery && value.length > 0)) || NOT_A_SECRET.test(value)) continue;
    found.add(value);
    out += `${text.slice(pos, v.start)}${REDACTED}`;
    pos = v.end;
    ASSIGNMENT.lastIndex = v.next;
  }
  return pos === 0 ? text : out + text.slice(pos);
}

/** Mask every pattern in `text` (no data URLs inside), reporting each masked value to `found`. */
function maskPatterns(text: string, found: Set<string>): string {
  let out = maskPem(text, found);
  out = out.replace(BEARER, (_m, scheme: string, token: string) => {
    found.add(token);
    return `${scheme} ${REDACTED}`;
  });
  out = maskAssignments(out, found);
  out = out.replace(URL_USERINFO, (m, scheme: string, user: string, password: string | undefined) => {
    if (password !== undefined) {
      found.add(password);
      return `${scheme}${user}:${REDACTED}@`;
    }
    // A bare user part is a credential when it looks like one (a token, not a login name).
    if (user.length >= 16 && /\d/.test(user) && /[A-Za-z]/.test(user)) {
      found.add(user);
      return `${scheme}${REDACTED}@`;
    }
    return m;
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

/**
 * How many distinct found values are masked again wherever else they occur. Each costs one pass
 * over the text, so the count is capped to keep redaction linear on text stuffed with assignments.
 */
const MAX_PROPAGATED = 64;

function sortedKnown(found: Iterable<string>): string[] {
  return [...new Set(found)]
    .filter(propagatable)
    .sort((a, b) => b.length - a.length)
    .slice(0, MAX_PROPAGATED);
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
