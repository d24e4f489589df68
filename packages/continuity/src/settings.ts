/**
 * Provider settings: `createContinuityProvider(settings)` merged over `memory.continuity` in
 * config.yaml. camelCase and snake_case keys are both accepted; bad values are a SettingsError.
 */
import os from 'node:os';
import path from 'node:path';
import { SettingsError } from '@hermes-memory/core';
import {
  isRecordKind,
  isTrustLevel,
  type RecordKind,
  SCOPE_KEYS,
  type Scopes,
  type TrustLevel,
} from './records';
import { DEFAULT_GATES, type GateSettings } from './retrieval/gates';
import { DEFAULT_WEIGHTS, type RetrievalWeights } from './retrieval/rank';

export interface PinnedSettings {
  /** Put the tier-0 block in the system prompt. */
  enabled: boolean;
  /** List the pinned records (false: only the short usage note). */
  includeRecords: boolean;
  maxChars: number;
  maxRecords: number;
  kinds: RecordKind[];
  minImportance: number;
  /** Lowest trust level a pinned record may have. */
  minTrust: TrustLevel;
}

export interface ContinuitySettings {
  /** SQLite file; `$HERMES_HOME`, `${HERMES_HOME}` and `~` are expanded. Default `<home>/continuity/continuity.db`. */
  dbPath?: string;
  /** Records per prefetch block (default 4). */
  maxRecords?: number | string;
  /** Characters per prefetch block, header included (default 1200). */
  maxChars?: number | string;
  /** `auto` (default): the host's embedder, else bundled Model2Vec when installed; `true`; `false`. */
  embeddings?: boolean | 'auto' | string;
  /** Association-graph expansion depth in hops; 0 turns it off (default 2). */
  graphDepth?: number | string;
  /** Mirror builtin memory writes into records (default true). */
  mirrorBuiltin?: boolean | string;
  /** Extract "Remember:", "Lesson learned:", "Decision:" lines at session end (default true). */
  extractMarkers?: boolean | string;
  /** `tools` turns prefetch off and keeps the tools and tier 0. */
  memoryMode?: 'hybrid' | 'tools';
  /** This conversation's scopes (profile and user default to the agent identity and user id). */
  scopes?: Scopes;
  gates?: Partial<GateSettings>;
  weights?: Partial<RetrievalWeights>;
  pinnedSystemPrompt?: Partial<PinnedSettings>;
  /** Retrieval events kept for `explain` (default 1000; 0 disables the log). */
  eventLogLimit?: number | string;
  /** Injected clock (tests, replays); not a config key. */
  clock?: () => Date;
}

export interface ResolvedSettings {
  dbPath: string;
  maxRecords: number;
  maxChars: number;
  embeddings: boolean | 'auto';
  graphDepth: number;
  mirrorBuiltin: boolean;
  extractMarkers: boolean;
  memoryMode: 'hybrid' | 'tools';
  scopes: Scopes;
  gates: GateSettings;
  weights: RetrievalWeights;
  pinned: PinnedSettings;
  eventLogLimit: number;
}

export const DEFAULT_PINNED: Readonly<PinnedSettings> = {
  enabled: true,
  includeRecords: true,
  maxChars: 1200,
  maxRecords: 5,
  kinds: ['user_preference', 'project_convention'],
  minImportance: 0.75,
  minTrust: 'high',
};

type Raw = Readonly<Record<string, unknown>>;

function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function pick(raw: Raw, camel: string): unknown {
  return raw[camel] !== undefined ? raw[camel] : raw[snake(camel)];
}

function bool(value: unknown, fallback: boolean, key: string): boolean {
  if (value === undefined || value === null || value === '') return fallback;
  if (typeof value === 'boolean') return value;
  const s = String(value).trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(s)) return true;
  if (['false', '0', 'no', 'off'].includes(s)) return false;
  throw new SettingsError(key, `continuity: '${key}' must be true or false, got ${JSON.stringify(value)}`);
}

function num(value: unknown, fallback: number, key: string, min: number, max: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n) || n < min || n > max)
    throw new SettingsError(
      key,
      `continuity: '${key}' must be a number from ${min} to ${max}, got ${JSON.stringify(value)}`,
    );
  return n;
}

function obj(value: unknown, key: string): Raw {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new SettingsError(key, `continuity: '${key}' must be a mapping`);
  return value as Raw;
}

const HERMES_HOME_VAR = /\$\{HERMES_HOME\}|\$HERMES_HOME/g;

export function expandDbPath(dbPath: string, hermesHome: string): string {
  let p = dbPath.replace(HERMES_HOME_VAR, () => hermesHome);
  if (p === '~' || p.startsWith('~/')) p = path.join(os.homedir(), p.slice(1));
  return path.resolve(hermesHome, p);
}

export function defaultDbPath(hermesHome: string): string {
  return path.join(hermesHome, 'continuity', 'continuity.db');
}

function resolveGates(raw: Raw): GateSettings {
  const g = { ...DEFAULT_GATES, staleAfterDays: { ...DEFAULT_GATES.staleAfterDays } };
  const unit = (k: keyof GateSettings) => num(pick(raw, k), g[k] as number, `gates.${snake(k)}`, 0, 1);
  g.minCoverage = unit('minCoverage');
  g.minScore = num(pick(raw, 'minScore'), g.minScore, 'gates.min_score', 0, 10);
  g.maxSharedShare = unit('maxSharedShare');
  g.relativeCutoff = unit('relativeCutoff');
  g.vectorOnlyMinCosine = unit('vectorOnlyMinCosine');
  g.graphMinActivation = num(
    pick(raw, 'graphMinActivation'),
    g.graphMinActivation,
    'gates.graph_min_activation',
    0,
    10,
  );
  g.maxAssociated = Math.trunc(
    num(pick(raw, 'maxAssociated'), g.maxAssociated, 'gates.max_associated', 0, 20),
  );
  g.skipBuiltinMirrors = bool(
    pick(raw, 'skipBuiltinMirrors'),
    g.skipBuiltinMirrors,
    'gates.skip_builtin_mirrors',
  );
  const stale = obj(pick(raw, 'staleAfterDays'), 'gates.stale_after_days');
  for (const [kind, days] of Object.entries(stale)) {
    if (!isRecordKind(kind))
      throw new SettingsError('gates.stale_after_days', `continuity: unknown kind '${kind}'`);
    g.staleAfterDays[kind] = num(days, 0, `gates.stale_after_days.${kind}`, 0, 36_500);
  }
  return g;
}

function resolveWeights(raw: Raw): RetrievalWeights {
  const w = { ...DEFAULT_WEIGHTS };
  for (const k of Object.keys(w) as Array<keyof RetrievalWeights>)
    w[k] = num(pick(raw, k), w[k], `weights.${snake(k)}`, 0, 10);
  return w;
}

function resolvePinned(raw: Raw): PinnedSettings {
  const p = { ...DEFAULT_PINNED };
  p.enabled = bool(pick(raw, 'enabled'), p.enabled, 'pinned_system_prompt.enabled');
  p.includeRecords = bool(
    pick(raw, 'includeRecords'),
    p.includeRecords,
    'pinned_system_prompt.include_records',
  );
  p.maxChars = Math.trunc(
    num(pick(raw, 'maxChars'), p.maxChars, 'pinned_system_prompt.max_chars', 0, 20_000),
  );
  p.maxRecords = Math.trunc(
    num(pick(raw, 'maxRecords'), p.maxRecords, 'pinned_system_prompt.max_records', 0, 50),
  );
  p.minImportance = num(
    pick(raw, 'minImportance'),
    p.minImportance,
    'pinned_system_prompt.min_importance',
    0,
    1,
  );
  const kinds = pick(raw, 'kinds');
  if (kinds !== undefined && kinds !== null) {
    const list = Array.isArray(kinds) ? kinds : String(kinds).split(',');
    p.kinds = list
      .map((k) => String(k).trim())
      .filter(Boolean)
      .map((k) => {
        if (!isRecordKind(k))
          throw new SettingsError('pinned_system_prompt.kinds', `continuity: unknown kind '${k}'`);
        return k;
      });
  }
  const trust = pick(raw, 'minTrust');
  if (trust !== undefined && trust !== null) {
    if (!isTrustLevel(trust))
      throw new SettingsError(
        'pinned_system_prompt.min_trust',
        `continuity: unknown trust level '${String(trust)}'`,
      );
    p.minTrust = trust;
  }
  return p;
}

function resolveScopes(raw: Raw, defaults: Scopes): Scopes {
  const out: Scopes = { ...defaults };
  for (const [k, v] of Object.entries(raw)) {
    if (!(SCOPE_KEYS as readonly string[]).includes(k))
      throw new SettingsError('scopes', `continuity: unknown scope '${k}'`);
    if (v === undefined || v === null || v === '') delete out[k as keyof Scopes];
    else out[k as keyof Scopes] = String(v);
  }
  return out;
}

export function resolveSettings(
  raw: Raw,
  hermesHome: string,
  defaults: { scopes?: Scopes } = {},
): ResolvedSettings {
  const dbRaw = pick(raw, 'dbPath');
  const embeddings = pick(raw, 'embeddings');
  const mode = pick(raw, 'memoryMode') ?? 'hybrid';
  if (mode !== 'hybrid' && mode !== 'tools')
    throw new SettingsError('memory_mode', "continuity: 'memory_mode' must be 'hybrid' or 'tools'");
  return {
    dbPath:
      typeof dbRaw === 'string' && dbRaw.trim()
        ? expandDbPath(dbRaw.trim(), hermesHome)
        : defaultDbPath(hermesHome),
    maxRecords: Math.trunc(num(pick(raw, 'maxRecords'), 4, 'max_records', 0, 50)),
    maxChars: Math.trunc(num(pick(raw, 'maxChars'), 1200, 'max_chars', 0, 50_000)),
    embeddings:
      embeddings === undefined || embeddings === null || String(embeddings).trim().toLowerCase() === 'auto'
        ? 'auto'
        : bool(embeddings, true, 'embeddings'),
    graphDepth: Math.trunc(num(pick(raw, 'graphDepth'), 2, 'graph_depth', 0, 5)),
    mirrorBuiltin: bool(pick(raw, 'mirrorBuiltin'), true, 'mirror_builtin'),
    extractMarkers: bool(pick(raw, 'extractMarkers'), true, 'extract_markers'),
    memoryMode: mode,
    scopes: resolveScopes(obj(pick(raw, 'scopes'), 'scopes'), defaults.scopes ?? {}),
    gates: resolveGates(obj(pick(raw, 'gates'), 'gates')),
    weights: resolveWeights(obj(pick(raw, 'weights'), 'weights')),
    pinned: resolvePinned(obj(pick(raw, 'pinnedSystemPrompt'), 'pinned_system_prompt')),
    eventLogLimit: Math.trunc(num(pick(raw, 'eventLogLimit'), 1000, 'event_log_limit', 0, 1_000_000)),
  };
}
