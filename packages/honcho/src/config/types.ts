import type { OAuthCredential } from '../auth/credential';
export const RECALL_MODES = ['hybrid', 'context', 'tools'] as const;
export type RecallMode = (typeof RECALL_MODES)[number];

export const REASONING_LEVELS = ['minimal', 'low', 'medium', 'high', 'max'] as const;
export type ReasoningLevel = (typeof REASONING_LEVELS)[number];

export const SESSION_STRATEGIES = ['per-directory', 'per-repo', 'per-session', 'global'] as const;
export type SessionStrategy = (typeof SESSION_STRATEGIES)[number];

export const OBSERVATION_MODES = ['directional', 'unified'] as const;
export type ObservationMode = (typeof OBSERVATION_MODES)[number];

/** `async` (background writer), `turn` (each turn before `syncTurn` resolves), `session` (at the end), N (every Nth turn). */
export type WriteFrequency = 'async' | 'turn' | 'session' | number;

export type InjectionFrequency = 'every-turn' | 'first-turn';

/** The sections of the base context, in the order they are injected. */
export const BASE_SECTIONS = [
  'summary',
  'peerRepresentation',
  'peerCard',
  'aiRepresentation',
  'aiCard',
] as const;
export type BaseSection = (typeof BASE_SECTIONS)[number];

/** Honcho's per-peer observation switches (`SessionPeerConfig`). */
export interface ObservationFlags {
  userObserveMe: boolean;
  userObserveOthers: boolean;
  aiObserveMe: boolean;
  aiObserveOthers: boolean;
}

/** honcho.json (host block over root) over environment over defaults, resolved for one host. */
export interface HonchoConfig {
  /** The `hosts.<key>` block in force (`hermes`, `hermes_<profile>`). */
  host: string;
  workspaceId: string;
  apiKey: string | undefined;
  /** The key came from honcho.json itself (not the environment): a local server then keeps it. */
  apiKeyInFile: boolean;
  /** The OAuth grant behind `apiKey`, when the host block holds one (`hermes-memory honcho login`). */
  oauth: OAuthCredential | undefined;
  environment: string;
  baseUrl: string | undefined;
  /** HTTP timeout per request in seconds, when configured. */
  timeoutSeconds: number | undefined;
  enabled: boolean;
  // identity
  peerName: string | undefined;
  aiPeer: string;
  pinUserPeer: boolean;
  userPeerAliases: Readonly<Record<string, string>>;
  runtimePeerPrefix: string;
  // writes
  saveMessages: boolean;
  writeFrequency: WriteFrequency;
  messageMaxChars: number;
  // recall
  recallMode: RecallMode;
  recallSync: boolean;
  initOnSessionStart: boolean;
  injectionFrequency: InjectionFrequency;
  contextCadence: number;
  dialecticCadence: number;
  contextTokens: number | undefined;
  queryRewrite: boolean;
  /** Seconds turn 1 may wait for session init plus base context. */
  firstTurnBaseWait: number;
  /** Seconds turn 1 may wait for the first dialectic. */
  firstTurnDialecticWait: number;
  /** Base-context sections injected (`injection.sessionStart`). */
  sessionStartSections: readonly BaseSection[];
  logging: boolean;
  // dialectic
  dialecticDepth: 1 | 2 | 3;
  dialecticDepthLevels: readonly ReasoningLevel[] | undefined;
  dialecticReasoningLevel: ReasoningLevel;
  dialecticDynamic: boolean;
  dialecticMaxChars: number;
  dialecticMaxInputChars: number;
  reasoningHeuristic: boolean;
  reasoningLevelCap: ReasoningLevel;
  // observation
  observationMode: ObservationMode;
  observation: ObservationFlags;
  // sessions
  sessionStrategy: SessionStrategy;
  sessionPeerPrefix: boolean;
  sessionAiPeerPrefix: boolean;
  a2aSessions: boolean;
  /** Directory → session name. */
  sessions: Readonly<Record<string, string>>;
  // provenance
  /** The file it was read from; undefined when it came from the environment alone. */
  configPath: string | undefined;
  /** A host block exists or `enabled: true` is set (vs auto-enabled from a stray key). */
  explicitlyConfigured: boolean;
  /** Problems found while reading (unknown values that fell back to defaults), one line each. */
  warnings: readonly string[];
}
