/**
 * The `ContextRecord`: one small, durable, source-linked piece of context (a preference, a decision,
 * a lesson, a fact about the environment or the project) — and the rules every write path applies
 * before one is stored.
 */
import { InvalidArgumentError } from '@hermes-memory/core';

/** Kinds written by people and agents. */
export const AUTHORED_KINDS = [
  'user_preference',
  'decision',
  'lesson_learned',
  'environment_fact',
  'project_convention',
  'active_project_state',
] as const;

/** Kinds produced by review-first corpus ingestion (decision 0904). */
export const CORPUS_KINDS = ['corpus_note', 'corpus_procedure', 'corpus_reference'] as const;

export const RECORD_KINDS = [...AUTHORED_KINDS, ...CORPUS_KINDS] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

/** How much a record is believed, by where it came from. Ordered low → high. */
export const TRUST_LEVELS = ['low', 'medium', 'high', 'verified'] as const;
export type TrustLevel = (typeof TRUST_LEVELS)[number];

/** Numeric weight of a trust level in ranking (mild: relevance decides, trust breaks ties). */
export const TRUST_WEIGHT: Readonly<Record<TrustLevel, number>> = {
  low: 0.4,
  medium: 0.7,
  high: 0.9,
  verified: 1,
};

export function trustRank(level: TrustLevel): number {
  return TRUST_LEVELS.indexOf(level);
}

/**
 * Lifecycle. Only `active` records reach the prompt or default searches; the others stay stored,
 * inspectable and restorable (decision 0902).
 */
export const RECORD_STATUSES = ['active', 'archived', 'retracted', 'expired', 'superseded'] as const;
export type RecordStatus = (typeof RECORD_STATUSES)[number];

export const SCOPE_KEYS = ['project', 'user', 'repo', 'profile'] as const;
export type ScopeKey = (typeof SCOPE_KEYS)[number];
export type Scopes = Partial<Record<ScopeKey, string>>;

/** Where a record came from. */
export const SOURCE_TYPES = [
  'tool',
  'memory_write',
  'session',
  'corpus_segment',
  'file',
  'import',
  'dream',
] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

export interface RecordSource {
  type: SourceType;
  /** `memory` / `user` for builtin writes, a session id, a file path, a segment id, ... */
  ref: string;
  /** Segment row for corpus-derived records (what `continuity_hydrate` reads back). */
  segmentId?: number;
  /** The text the record was made from, when short (a builtin entry, a marker line). */
  excerpt?: string;
  /** The session that made the write. */
  sessionId?: string;
}

/** A compact hint that a Hermes skill may be relevant when this record is. */
export interface SkillLink {
  name: string;
  reason?: string;
}

export interface ContextRecord {
  id: string;
  kind: RecordKind;
  title: string;
  summary: string;
  details: string | null;
  scopes: Scopes;
  tags: string[];
  entities: string[];
  /** How sure the writer was that this is true, 0–1. */
  confidence: number;
  /** How much it matters when relevant, 0–1 (also the tier-0 threshold). */
  importance: number;
  trustLevel: TrustLevel;
  status: RecordStatus;
  /** Why the status last changed ("removed from builtin memory", "stale: not updated in 45 days"). */
  statusReason: string | null;
  supersededBy: string | null;
  /** ISO time after which the record is expired. */
  expiresAt: string | null;
  /** When the fact was stated or observed (a corpus segment's date); defaults to creation. */
  observedAt: string;
  createdAt: string;
  updatedAt: string;
  sources: RecordSource[];
  skillLinks: SkillLink[];
}

/** What a write path supplies; everything else gets a default. */
export interface RecordInput {
  id?: string;
  kind: RecordKind;
  title: string;
  summary: string;
  details?: string | null;
  scopes?: Scopes;
  tags?: readonly string[];
  entities?: readonly string[];
  confidence?: number;
  importance?: number;
  trustLevel?: TrustLevel;
  expiresAt?: string | null;
  observedAt?: string | null;
  sources?: readonly RecordSource[];
  skillLinks?: readonly SkillLink[];
}

/** Field limits: records are meant to be small (large procedures belong in skills or documents). */
export const LIMITS = {
  title: 160,
  summary: 1_000,
  details: 4_000,
  tags: 16,
  tag: 48,
  entities: 16,
  entity: 80,
  scope: 120,
  excerpt: 2_000,
  skillLinks: 8,
} as const;

/** A record field that failed validation; the message is fit for a model or a CLI user. */
export class RecordValidationError extends InvalidArgumentError {
  constructor(field: string, message: string) {
    super(field, message);
    this.name = 'RecordValidationError';
  }
}

export function isRecordKind(value: unknown): value is RecordKind {
  return typeof value === 'string' && (RECORD_KINDS as readonly string[]).includes(value);
}

export function isTrustLevel(value: unknown): value is TrustLevel {
  return typeof value === 'string' && (TRUST_LEVELS as readonly string[]).includes(value);
}

export function isRecordStatus(value: unknown): value is RecordStatus {
  return typeof value === 'string' && (RECORD_STATUSES as readonly string[]).includes(value);
}

/** Collapse whitespace runs (records render one per line) and trim. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function text(field: string, value: unknown, max: number, required: boolean): string {
  if (value === undefined || value === null) {
    if (required) throw new RecordValidationError(field, `'${field}' is required.`);
    return '';
  }
  if (typeof value !== 'string') throw new RecordValidationError(field, `'${field}' must be a string.`);
  const t = field === 'details' ? value.trim() : oneLine(value);
  if (required && t === '') throw new RecordValidationError(field, `'${field}' must not be empty.`);
  if (t.length > max)
    throw new RecordValidationError(field, `'${field}' is ${t.length} characters; the limit is ${max}.`);
  return t;
}

function unit(field: string, value: unknown, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1)
    throw new RecordValidationError(field, `'${field}' must be a number between 0 and 1.`);
  return value;
}

function list(field: string, value: unknown, maxItems: number, maxLen: number): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new RecordValidationError(field, `'${field}' must be a list of strings.`);
  const out: string[] = [];
  const seen = new Set<string>();
  for (const item of value) {
    if (typeof item !== 'string')
      throw new RecordValidationError(field, `'${field}' must be a list of strings.`);
    const t = oneLine(item);
    if (!t) continue;
    if (t.length > maxLen)
      throw new RecordValidationError(field, `An entry of '${field}' is longer than ${maxLen} characters.`);
    const key = t.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(t);
  }
  if (out.length > maxItems)
    throw new RecordValidationError(field, `'${field}' has ${out.length} entries; the limit is ${maxItems}.`);
  return out;
}

function isoTime(field: string, value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value)))
    throw new RecordValidationError(field, `'${field}' must be an ISO 8601 date or time.`);
  return new Date(Date.parse(value)).toISOString();
}

function scopes(value: unknown): Scopes {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new RecordValidationError('scopes', "'scopes' must be an object of project, user, repo, profile.");
  const out: Scopes = {};
  for (const [key, raw] of Object.entries(value as Record<string, unknown>)) {
    if (!(SCOPE_KEYS as readonly string[]).includes(key))
      throw new RecordValidationError(
        'scopes',
        `Unknown scope '${key}'. Use project, user, repo or profile.`,
      );
    if (raw === undefined || raw === null || raw === '') continue;
    out[key as ScopeKey] = text(`scopes.${key}`, raw, LIMITS.scope, true);
  }
  return out;
}

function sources(value: unknown): RecordSource[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new RecordValidationError('sources', "'sources' must be a list.");
  return value.map((raw, i) => {
    if (typeof raw !== 'object' || raw === null)
      throw new RecordValidationError('sources', `sources[${i}] must be an object.`);
    const s = raw as Record<string, unknown>;
    if (!(SOURCE_TYPES as readonly string[]).includes(String(s.type)))
      throw new RecordValidationError(
        'sources',
        `sources[${i}].type must be one of ${SOURCE_TYPES.join(', ')}.`,
      );
    const out: RecordSource = {
      type: s.type as SourceType,
      ref: text(`sources[${i}].ref`, s.ref ?? '', 500, false),
    };
    if (s.segmentId !== undefined && s.segmentId !== null) {
      if (!Number.isSafeInteger(s.segmentId))
        throw new RecordValidationError('sources', `sources[${i}].segmentId must be an integer.`);
      out.segmentId = s.segmentId as number;
    }
    if (typeof s.excerpt === 'string' && s.excerpt.trim())
      out.excerpt = s.excerpt.trim().slice(0, LIMITS.excerpt);
    if (typeof s.sessionId === 'string' && s.sessionId) out.sessionId = s.sessionId.slice(0, 200);
    return out;
  });
}

function skillLinks(value: unknown): SkillLink[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new RecordValidationError('skill_links', "'skill_links' must be a list.");
  if (value.length > LIMITS.skillLinks)
    throw new RecordValidationError(
      'skill_links',
      `'skill_links' has more than ${LIMITS.skillLinks} entries.`,
    );
  return value.map((raw, i) => {
    const s = typeof raw === 'string' ? { name: raw } : (raw as Record<string, unknown> | null);
    if (!s || typeof s !== 'object')
      throw new RecordValidationError('skill_links', `skill_links[${i}] must be a name or {name, reason}.`);
    const link: SkillLink = { name: text(`skill_links[${i}].name`, s.name, 80, true) };
    const reason = text(`skill_links[${i}].reason`, s.reason, 200, false);
    if (reason) link.reason = reason;
    return link;
  });
}

/** The validated, normalised fields of a new record (ids, status and times are the store's). */
export type NormalizedInput = Omit<
  ContextRecord,
  'id' | 'status' | 'statusReason' | 'supersededBy' | 'createdAt' | 'updatedAt' | 'observedAt'
> & {
  id?: string;
  observedAt: string | null;
};

const ID_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Validate and normalise a record input; throws `RecordValidationError` with a clear message. */
export function normalizeRecordInput(input: RecordInput): NormalizedInput {
  if (typeof input !== 'object' || input === null)
    throw new RecordValidationError('record', 'A record must be an object.');
  if (!isRecordKind(input.kind))
    throw new RecordValidationError(
      'kind',
      `Invalid kind '${String(input.kind)}'. Use one of: ${RECORD_KINDS.join(', ')}.`,
    );
  if (input.trustLevel !== undefined && !isTrustLevel(input.trustLevel))
    throw new RecordValidationError(
      'trust_level',
      `Invalid trust_level '${String(input.trustLevel)}'. Use one of: ${TRUST_LEVELS.join(', ')}.`,
    );
  if (input.id !== undefined && (typeof input.id !== 'string' || !ID_PATTERN.test(input.id)))
    throw new RecordValidationError(
      'id',
      "'id' must be 1–64 characters of letters, digits, '_', '.', ':' or '-'.",
    );
  return {
    id: input.id,
    kind: input.kind,
    title: text('title', input.title, LIMITS.title, true),
    summary: text('summary', input.summary, LIMITS.summary, true),
    details: text('details', input.details, LIMITS.details, false) || null,
    scopes: scopes(input.scopes),
    tags: list('tags', input.tags, LIMITS.tags, LIMITS.tag),
    entities: list('entities', input.entities, LIMITS.entities, LIMITS.entity),
    confidence: unit('confidence', input.confidence, 0.7),
    importance: unit('importance', input.importance, 0.5),
    trustLevel: input.trustLevel ?? 'medium',
    expiresAt: isoTime('expires_at', input.expiresAt),
    observedAt: isoTime('observed_at', input.observedAt),
    sources: sources(input.sources),
    skillLinks: skillLinks(input.skillLinks),
  };
}

/** The text a duplicate check compares: kind-independent, case- and punctuation-insensitive. */
export function contentKey(title: string, summary: string): string {
  return `${title}\n${summary}`
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** True when the record may reach the prompt and default searches at time `now`. */
export function isLive(record: Pick<ContextRecord, 'status' | 'expiresAt'>, now: Date): boolean {
  if (record.status !== 'active') return false;
  return !(record.expiresAt && Date.parse(record.expiresAt) <= now.getTime());
}
