/**
 * @hermes-memory/honcho — Honcho memory for Hermes agents: peers, sessions and dialectic user
 * modelling through the official `@honcho-ai/sdk`, with nothing on the hot path after turn 1.
 */
import type { ProviderFactoryContext } from '@hermes-memory/core';
import { HonchoProvider, type HonchoProviderSettings } from './provider';

export { profileHostKey, resolveActiveHost } from './config/hosts';
export { configCandidates, type LoadConfigOptions, loadHonchoConfig } from './config/load';
export { isConfigured, resolveHonchoConfig } from './config/resolve';
export type {
  HonchoConfig,
  ObservationFlags,
  ReasoningLevel,
  RecallMode,
  SessionStrategy,
  WriteFrequency,
} from './config/types';
export { type RuntimeIdentity, resolveAiPeerId, resolveUserPeer, type UserPeer } from './identity/peers';
export { resolveSessionName, type SessionNameInput, sessionIdOf } from './identity/session-name';
export { HonchoProvider, type HonchoProviderSettings, INIT_WAIT_MS } from './provider';
export { chunkMessage } from './session/chunk';
export { DEFAULT_HELD_LIMITS, type HeldLimits } from './session/writer';
export { HONCHO_TOOL_SCHEMAS } from './tools/schemas';

/** Create the provider; `context` is what plugin discovery passes (home, env with `<home>/.env`). */
export function createHonchoProvider(
  settings: HonchoProviderSettings = {},
  context?: Partial<ProviderFactoryContext>,
): HonchoProvider {
  return new HonchoProvider(settings, context);
}

/** The factory plugin discovery calls (`memory.provider: honcho`). */
export const createProvider = createHonchoProvider;

// package.json's version, put in by the build (tsup.preset.ts); running from source reports 0.0.0-dev.
declare const __PACKAGE_VERSION__: string | undefined;
export const VERSION: string = typeof __PACKAGE_VERSION__ === 'string' ? __PACKAGE_VERSION__ : '0.0.0-dev';
