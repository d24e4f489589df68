/**
 * honcho.json → HonchoConfig, key by key in the reference's precedence: the host block, then the
 * file's root, then the environment (for the keys that have a variable), then the default. The
 * Python agent's file is read unchanged; values it would reject fall back to the default here too,
 * with a warning instead of silence.
 */
import type { Env } from '@hermes-memory/core';
import { credentialFromBlock } from '../auth/credential';
import { DEFAULT_HOST, hostBlock } from './hosts';
import {
  BASE_SECTIONS,
  type BaseSection,
  type HonchoConfig,
  type InjectionFrequency,
  OBSERVATION_MODES,
  type ObservationFlags,
  type ObservationMode,
  REASONING_LEVELS,
  RECALL_MODES,
  type ReasoningLevel,
  type RecallMode,
  SESSION_STRATEGIES,
  type SessionStrategy,
  type WriteFrequency,
} from './types';
import {
  firstParsed,
  firstSet,
  isObject,
  type JsonObject,
  printableUrl,
  toFlag,
  toFloat,
  toInt,
  truthy,
} from './values';

export interface ResolveConfigOptions {
  /** The parsed honcho.json; undefined when there is none (the environment alone is used). */
  raw: JsonObject | undefined;
  /** The host key in force (`resolveActiveHost`). */
  host: string;
  env: Env;
  /** Where `raw` was read from. */
  configPath?: string;
}

const OBSERVATION_PRESETS: Record<ObservationMode, ObservationFlags> = {
  directional: { userObserveMe: true, userObserveOthers: true, aiObserveMe: true, aiObserveOthers: true },
  unified: { userObserveMe: true, userObserveOthers: false, aiObserveMe: false, aiObserveOthers: true },
};

/** Host-block-over-root lookups in one honcho.json (the reference's `_HostLookup`). */
class Lookup {
  constructor(
    readonly host: JsonObject,
    readonly root: JsonObject,
  ) {}

  /** A truthy host value, else the root's (even a falsy one), else `fallback`. */
  pick(key: string, fallback?: unknown): unknown {
    const own = this.host[key];
    if (truthy(own)) return own;
    return key in this.root ? this.root[key] : fallback;
  }

  /** A host value that is set (not null), else the root's, else `fallback`. */
  pickSet(key: string, fallback: unknown): unknown {
    const own = this.host[key];
    if (own !== null && own !== undefined) return own;
    const rootValue = this.root[key];
    return rootValue !== null && rootValue !== undefined ? rootValue : fallback;
  }

  /** Host values, then root values, for the aliased keys. */
  values(...keys: string[]): unknown[] {
    return [...keys.map((k) => this.host[k]), ...keys.map((k) => this.root[k])];
  }

  flag(keys: string[], fallback: boolean): boolean {
    return toFlag(firstSet(this.values(...keys), fallback));
  }

  parsed<T>(key: string, cast: (value: unknown) => T, fallback: T): T {
    return firstParsed(this.values(key), cast, fallback);
  }

  /** The host value when the key is present there (even empty), else the root's. */
  present(key: string): unknown {
    return key in this.host ? this.host[key] : this.root[key];
  }

  string(key: string): string {
    const value = this.present(key);
    return value === null || value === undefined ? '' : String(value).trim();
  }

  /** A string map; a host-level map replaces the root map wholesale. */
  stringMap(key: string): Record<string, string> {
    const source = this.present(key);
    if (!isObject(source)) return {};
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(source)) {
      const name = k.trim();
      const value = v === null || v === undefined ? '' : String(v).trim();
      if (name && value) out[name] = value;
    }
    return out;
  }
}

function positiveFloat(value: unknown): number {
  const n = toFloat(value);
  if (!(n > 0) || !Number.isFinite(n)) throw new RangeError('not positive');
  return n;
}

function nonNegativeSeconds(value: unknown): number {
  const n = toFloat(value);
  if (Number.isNaN(n)) throw new RangeError('not a number');
  return Math.max(0, n);
}

function envBaseUrl(env: Env): string | undefined {
  return (env.HONCHO_BASE_URL ?? '').trim() || (env.HONCHO_URL ?? '').trim() || undefined;
}

function oneOf<T extends string>(
  value: unknown,
  allowed: readonly T[],
  fallback: T,
  what: string,
  warnings: string[],
  aliases: Readonly<Record<string, T>> = {},
): T {
  const text = typeof value === 'string' ? value.trim() : value;
  const mapped = typeof text === 'string' && text in aliases ? aliases[text] : text;
  if ((allowed as readonly unknown[]).includes(mapped)) return mapped as T;
  if (value !== undefined && value !== null && value !== '') {
    warnings.push(
      `${what} ${JSON.stringify(value)} is not one of ${allowed.join(', ')}; using "${fallback}".`,
    );
  }
  return fallback;
}

function writeFrequencyOf(look: Lookup, warnings: string[]): WriteFrequency {
  const raw = look.pick('writeFrequency') || 'async';
  const parsed = firstParsed<WriteFrequency>([raw], toInt, String(raw) as WriteFrequency);
  if (typeof parsed === 'number') {
    if (parsed > 0) return parsed;
  } else if (parsed === 'async' || parsed === 'turn' || parsed === 'session') {
    return parsed;
  }
  warnings.push(
    `writeFrequency ${JSON.stringify(raw)} is not "async", "turn", "session" or a positive integer; using "async".`,
  );
  return 'async';
}

function depthLevels(look: Lookup, depth: number): ReasoningLevel[] | undefined {
  for (const value of look.values('dialecticDepthLevels')) {
    if (!Array.isArray(value)) continue;
    const levels = value
      .slice(0, depth)
      .map((level) =>
        (REASONING_LEVELS as readonly unknown[]).includes(level) ? (level as ReasoningLevel) : 'low',
      );
    while (levels.length < depth) levels.push('low');
    return levels;
  }
  return undefined;
}

function observationOf(mode: ObservationMode, explicit: unknown): ObservationFlags {
  const preset = OBSERVATION_PRESETS[mode];
  if (!isObject(explicit) || Object.keys(explicit).length === 0) return { ...preset };
  const flag = (who: 'user' | 'ai', key: 'observeMe' | 'observeOthers', fallback: boolean): boolean => {
    const block = explicit[who];
    const value = isObject(block) ? block[key] : undefined;
    return value === undefined || value === null ? fallback : toFlag(value);
  };
  return {
    userObserveMe: flag('user', 'observeMe', preset.userObserveMe),
    userObserveOthers: flag('user', 'observeOthers', preset.userObserveOthers),
    aiObserveMe: flag('ai', 'observeMe', preset.aiObserveMe),
    aiObserveOthers: flag('ai', 'observeOthers', preset.aiObserveOthers),
  };
}

function sessionSections(look: Lookup): BaseSection[] {
  const injection = look.pick('injection');
  const list = isObject(injection) ? injection.sessionStart : undefined;
  if (!Array.isArray(list)) return [...BASE_SECTIONS];
  return BASE_SECTIONS.filter((section) => list.includes(section));
}

function stringRecord(value: unknown): Record<string, string> {
  if (!isObject(value)) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) if (typeof v === 'string' && v) out[k] = v;
  return out;
}

/** Defaults for everything that is not connection or identity (the environment-only config). */
function behaviourDefaults(): Omit<
  HonchoConfig,
  | 'host'
  | 'workspaceId'
  | 'apiKey'
  | 'apiKeyInFile'
  | 'oauth'
  | 'environment'
  | 'baseUrl'
  | 'timeoutSeconds'
  | 'enabled'
  | 'aiPeer'
  | 'configPath'
  | 'explicitlyConfigured'
  | 'warnings'
> {
  return {
    peerName: undefined,
    pinUserPeer: false,
    userPeerAliases: {},
    runtimePeerPrefix: '',
    saveMessages: true,
    writeFrequency: 'async',
    messageMaxChars: 25_000,
    recallMode: 'hybrid',
    recallSync: false,
    initOnSessionStart: false,
    injectionFrequency: 'every-turn',
    contextCadence: 1,
    dialecticCadence: 1,
    contextTokens: undefined,
    queryRewrite: false,
    firstTurnBaseWait: 3,
    firstTurnDialecticWait: 2,
    sessionStartSections: [...BASE_SECTIONS],
    logging: false,
    dialecticDepth: 1,
    dialecticDepthLevels: undefined,
    dialecticReasoningLevel: 'low',
    dialecticDynamic: true,
    dialecticMaxChars: 600,
    dialecticMaxInputChars: 10_000,
    reasoningHeuristic: true,
    reasoningLevelCap: 'high',
    observationMode: 'directional',
    observation: { ...OBSERVATION_PRESETS.directional },
    sessionStrategy: 'per-directory',
    sessionPeerPrefix: false,
    sessionAiPeerPrefix: false,
    a2aSessions: true,
    sessions: {},
  };
}

/** The environment-only config (no honcho.json anywhere): the reference's `from_env`. */
function fromEnv(options: ResolveConfigOptions, warnings: string[]): HonchoConfig {
  const { env, host } = options;
  const apiKey = (env.HONCHO_API_KEY ?? '').trim() || undefined;
  const rawUrl = envBaseUrl(env);
  const baseUrl = printableUrl(rawUrl);
  if (rawUrl && !baseUrl)
    warnings.push('The Honcho base URL contains non-printable characters and is ignored.');
  return {
    ...behaviourDefaults(),
    host,
    workspaceId: DEFAULT_HOST,
    apiKey,
    apiKeyInFile: false,
    oauth: undefined,
    environment: (env.HONCHO_ENVIRONMENT ?? '').trim() || 'production',
    baseUrl,
    timeoutSeconds: firstParsed([env.HONCHO_TIMEOUT], positiveFloat, undefined),
    enabled: Boolean(apiKey || baseUrl),
    aiPeer: host,
    configPath: options.configPath,
    explicitlyConfigured: false,
    warnings,
  };
}

export function resolveHonchoConfig(options: ResolveConfigOptions): HonchoConfig {
  const warnings: string[] = [];
  const { raw, host, env } = options;
  if (!raw) return fromEnv(options, warnings);

  const block = hostBlock(raw, host);
  const look = new Lookup(block, raw);
  const explicitlyConfigured = Object.keys(block).length > 0 || raw.enabled === true;

  // connection and identity
  const keyInFile = look.pick('apiKey');
  const apiKey = (truthy(keyInFile) ? String(keyInFile) : (env.HONCHO_API_KEY ?? '').trim()) || undefined;
  if (
    !apiKey &&
    Object.keys(block).length > 0 &&
    host !== DEFAULT_HOST &&
    truthy(hostBlock(raw, DEFAULT_HOST).apiKey)
  ) {
    warnings.push(
      `Honcho host block '${host}' has no apiKey; the default '${DEFAULT_HOST}' host's key is NOT inherited (profiles are credential-isolated). Set apiKey on hosts.${host}${options.configPath ? ` in ${options.configPath}` : ''} or this profile runs unauthenticated.`,
    );
  }
  const grant = credentialFromBlock(block);
  const endpoint = isObject(raw.endpoint) ? raw.endpoint.baseUrl : undefined;
  const urlCandidate = [
    block.baseUrl,
    block.base_url,
    endpoint,
    raw.baseUrl,
    raw.base_url,
    envBaseUrl(env),
  ].find(truthy);
  const baseUrl = printableUrl(urlCandidate);
  if (urlCandidate !== undefined && !baseUrl) {
    warnings.push('The Honcho base URL contains non-printable characters and is ignored.');
  }
  const enabled = toFlag(firstSet(look.values('enabled'), Boolean(apiKey || baseUrl)));

  // behaviour
  const depth = look.parsed('dialecticDepth', (v) => Math.max(1, Math.min(toInt(v), 3)), 1) as 1 | 2 | 3;
  const observationMode = oneOf<ObservationMode>(
    look.pick('observationMode') || (explicitlyConfigured ? 'unified' : 'directional'),
    OBSERVATION_MODES,
    'directional',
    'observationMode',
    warnings,
    { shared: 'unified', separate: 'directional', cross: 'directional' },
  );
  const contextTokens = look.parsed<number | undefined>('contextTokens', toInt, undefined);
  const messageMaxChars = look.parsed('messageMaxChars', toInt, 25_000);
  if (messageMaxChars < 100) warnings.push(`messageMaxChars ${messageMaxChars} is below 100; using 100.`);
  const strategyRaw = look.pick('sessionStrategy', 'per-directory');
  // An unknown strategy resolves like `global` in the reference (its last branch): keep that, say so.
  const sessionStrategy = oneOf<SessionStrategy>(
    strategyRaw,
    SESSION_STRATEGIES,
    'global',
    'sessionStrategy',
    warnings,
  );
  const peerName = look.pick('peerName');

  return {
    host,
    workspaceId: String(look.pick('workspace') || host),
    apiKey,
    apiKeyInFile: truthy(block.apiKey) || truthy(raw.apiKey),
    // Only a grant whose access token is the key in force (code overrides may replace it).
    oauth: grant && grant.accessToken === apiKey ? grant : undefined,
    environment: String(look.pick('environment', 'production') || 'production'),
    baseUrl,
    timeoutSeconds: firstParsed(
      [...look.values('timeout', 'requestTimeout'), env.HONCHO_TIMEOUT],
      positiveFloat,
      undefined,
    ),
    enabled,
    peerName: truthy(peerName) ? String(peerName) : undefined,
    aiPeer: String(look.pick('aiPeer') || host),
    pinUserPeer: look.flag(['pinUserPeer', 'pinPeerName'], false),
    userPeerAliases: look.stringMap('userPeerAliases'),
    runtimePeerPrefix: look.string('runtimePeerPrefix'),
    saveMessages: toFlag(look.pickSet('saveMessages', true)),
    writeFrequency: writeFrequencyOf(look, warnings),
    messageMaxChars: Math.max(100, messageMaxChars),
    recallMode: oneOf<RecallMode>(
      look.pick('recallMode') || 'hybrid',
      RECALL_MODES,
      'hybrid',
      'recallMode',
      warnings,
      {
        auto: 'hybrid',
      },
    ),
    recallSync: look.flag(['recallSync'], false),
    initOnSessionStart: look.flag(['initOnSessionStart'], false),
    injectionFrequency: (look.pick('injectionFrequency', 'every-turn') === 'first-turn'
      ? 'first-turn'
      : 'every-turn') as InjectionFrequency,
    contextCadence: Math.max(1, look.parsed('contextCadence', toInt, 1)),
    dialecticCadence: Math.max(1, look.parsed('dialecticCadence', toInt, 1)),
    contextTokens: contextTokens !== undefined && contextTokens > 0 ? contextTokens : undefined,
    queryRewrite: look.flag(['queryRewrite'], false),
    firstTurnBaseWait: look.parsed('firstTurnBaseWait', nonNegativeSeconds, 3),
    firstTurnDialecticWait: look.parsed('firstTurnDialecticWait', nonNegativeSeconds, 2),
    sessionStartSections: sessionSections(look),
    logging: look.flag(['logging'], false),
    dialecticDepth: depth,
    dialecticDepthLevels: depthLevels(look, depth),
    dialecticReasoningLevel: oneOf<ReasoningLevel>(
      look.pick('dialecticReasoningLevel') || 'low',
      REASONING_LEVELS,
      'low',
      'dialecticReasoningLevel',
      warnings,
    ),
    dialecticDynamic: look.flag(['dialecticDynamic'], true),
    dialecticMaxChars: look.parsed('dialecticMaxChars', toInt, 600),
    dialecticMaxInputChars: Math.max(1, look.parsed('dialecticMaxInputChars', toInt, 10_000)),
    reasoningHeuristic: look.flag(['reasoningHeuristic'], true),
    reasoningLevelCap: oneOf<ReasoningLevel>(
      look.pick('reasoningLevelCap') || 'high',
      REASONING_LEVELS,
      'high',
      'reasoningLevelCap',
      warnings,
    ),
    observationMode,
    observation: observationOf(observationMode, look.pick('observation')),
    sessionStrategy,
    sessionPeerPrefix: toFlag(look.pickSet('sessionPeerPrefix', false)),
    sessionAiPeerPrefix: toFlag(look.pickSet('sessionAiPeerPrefix', false)),
    a2aSessions: look.flag(['a2aSessions'], true),
    sessions: stringRecord(raw.sessions),
    configPath: options.configPath,
    explicitlyConfigured,
    warnings,
  };
}

/** Whether the provider can run: enabled, with a key or a base URL (the reference's `is_available`). */
export function isConfigured(config: HonchoConfig): boolean {
  return config.enabled && Boolean(config.apiKey || config.baseUrl);
}
