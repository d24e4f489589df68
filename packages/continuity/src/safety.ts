/**
 * The checks every write path runs before a record is stored (decision 0903): core's write scanner
 * (prompt injection, exfiltration, persistence, invisible Unicode) on every text field, and secret
 * detection — rejected on interactive paths (a tool call can be retried without the secret),
 * redacted on paths that mirror text already written elsewhere (builtin memory, transcripts).
 */
import {
  InvalidArgumentError,
  REDACTED,
  type ScanResult,
  collectSecrets,
  neutralizeMemoryText,
  redactSecrets,
  scanWrite,
} from '@hermes-memory/core';
import type { NormalizedInput } from './records';

export type SecretPolicy = 'reject' | 'redact';

/** A record refused by the scanner or the secret check. `reason` is stable for tests and reports. */
export class UnsafeRecordError extends InvalidArgumentError {
  constructor(
    readonly reason: 'threat' | 'secret',
    readonly patternId: string,
    message: string,
  ) {
    super('record', message);
    this.name = 'UnsafeRecordError';
  }
}

/** The prompt-bound text of a record, field by field. */
function textFields(r: NormalizedInput): Array<[string, string]> {
  const out: Array<[string, string]> = [
    ['title', r.title],
    ['summary', r.summary],
  ];
  if (r.details) out.push(['details', r.details]);
  for (const t of r.tags) out.push(['tags', t]);
  for (const e of r.entities) out.push(['entities', e]);
  for (const [k, v] of Object.entries(r.scopes)) if (v) out.push([`scopes.${k}`, v]);
  for (const s of r.skillLinks) out.push(['skill_links', s.reason ? `${s.name} ${s.reason}` : s.name]);
  return out;
}

/**
 * Both checks are pure functions of a text, and review and import check the same lines moments
 * apart (both must: a reviewer may edit the candidates in between). A text checked again in this
 * process gets the verdict it got; the memory is bounded and starts over when full.
 */
const verdicts = new Map<string, { scan?: ScanResult; secret?: boolean }>();
let rememberedChars = 0;
const MAX_REMEMBERED_CHARS = 2_000_000;

function verdictOf(text: string): { scan?: ScanResult; secret?: boolean } {
  let v = verdicts.get(text);
  if (!v) {
    if (rememberedChars + text.length > MAX_REMEMBERED_CHARS) {
      verdicts.clear();
      rememberedChars = 0;
    }
    v = {};
    verdicts.set(text, v);
    rememberedChars += text.length;
  }
  return v;
}

function scanText(text: string): ScanResult {
  const v = verdictOf(text);
  v.scan ??= scanWrite(text);
  return v.scan;
}

function hasSecret(text: string): boolean {
  const v = verdictOf(text);
  v.secret ??= collectSecrets(text).length > 0;
  return v.secret;
}

/** Throws `UnsafeRecordError` when the scanner blocks any text field. */
export function scanRecord(r: NormalizedInput): void {
  for (const [field, value] of textFields(r)) {
    const result = scanText(value);
    if (!result.ok)
      throw new UnsafeRecordError('threat', result.patternId, `${result.message} (field '${field}')`);
  }
}

/** True when any field, or a source excerpt, holds something that looks like a credential. */
export function findSecretField(r: NormalizedInput): string | null {
  for (const [field, value] of textFields(r)) if (hasSecret(value)) return field;
  for (const s of r.sources) if (s.excerpt && hasSecret(s.excerpt)) return 'sources';
  return null;
}

/**
 * Refuses a record handed to a tool whose text holds the redactor's mask. Through a MemoryManager a
 * secret in tool arguments is masked before it gets here (egress redaction, decision 0103); storing
 * the masked text would tell the model it saved something it did not. Only for what a tool is
 * handed: stored records (mirrored, imported, merged) may carry the mask legitimately.
 */
export function refuseMaskedSecret(r: NormalizedInput): void {
  for (const [field, value] of textFields(r))
    if (value.includes(REDACTED))
      throw new UnsafeRecordError(
        'secret',
        'secret',
        `Refused: '${field}' contained what looks like a secret (API key, token or password), masked as ` +
          `${REDACTED} before it reached continuity. Store a description of where the secret lives instead, never the value.`,
      );
}

function redactRecord(r: NormalizedInput): NormalizedInput {
  return {
    ...r,
    title: redactSecrets(r.title),
    summary: redactSecrets(r.summary),
    details: r.details ? redactSecrets(r.details) : r.details,
    tags: r.tags.map(redactSecrets),
    entities: r.entities.map(redactSecrets),
    scopes: Object.fromEntries(Object.entries(r.scopes).map(([k, v]) => [k, v ? redactSecrets(v) : v])),
    skillLinks: r.skillLinks.map((s) => ({ ...s, reason: s.reason ? redactSecrets(s.reason) : s.reason })),
    sources: r.sources.map((s) => (s.excerpt ? { ...s, excerpt: redactSecrets(s.excerpt) } : s)),
  };
}

/**
 * Apply both checks. Returns the record to store (redacted under the `redact` policy); throws
 * `UnsafeRecordError` for threats, and for secrets under `reject`.
 */
export function checkRecordSafety(r: NormalizedInput, secrets: SecretPolicy): NormalizedInput {
  const field = findSecretField(r);
  let out = r;
  if (field) {
    if (secrets === 'reject')
      throw new UnsafeRecordError(
        'secret',
        'secret',
        `Refused: '${field}' contains what looks like a secret (API key, token or password). ` +
          'Store a description of where the secret lives instead, never the value.',
      );
    out = redactRecord(r);
  }
  scanRecord(out);
  return neutralizeRecord(out);
}

/**
 * Every prompt-bound text with fence markup escaped (core's `neutralizeMemoryText`, decision 0113):
 * a stored record can never open, close or imitate the `<memory-context>` fence. Unchanged records
 * come back as they were.
 */
function neutralizeRecord(r: NormalizedInput): NormalizedInput {
  const n = neutralizeMemoryText;
  return {
    ...r,
    title: n(r.title),
    summary: n(r.summary),
    details: r.details ? n(r.details) : r.details,
    tags: r.tags.map(n),
    entities: r.entities.map(n),
    scopes: Object.fromEntries(Object.entries(r.scopes).map(([k, v]) => [k, v ? n(v) : v])),
    skillLinks: r.skillLinks.map((s) => ({ ...s, reason: s.reason ? n(s.reason) : s.reason })),
    sources: r.sources.map((s) => (s.excerpt ? { ...s, excerpt: n(s.excerpt) } : s)),
  };
}
