/**
 * @hermes-memory/openviking — OpenViking (a context database that keeps knowledge as a
 * `viking://` file tree, extracting memories from committed sessions) as a Hermes memory
 * provider, over its HTTP API. Its fake server is `@hermes-memory/openviking/testing`.
 */
import type { ProviderFactoryContext } from '@hermes-memory/core';
import { OpenvikingProvider, type OpenvikingProviderOptions } from './openviking-provider';

export { OpenvikingProvider, type OpenvikingProviderContext, type OpenvikingProviderOptions } from './openviking-provider';
export {
  type OpenvikingProviderSettings,
  type RecallSettings,
  type ResolvedOpenvikingSettings,
  type SettingSource,
  identityProblem,
  resolveOpenvikingSettings,
} from './openviking-settings';
export { DEFAULT_ENDPOINT, HOSTED_ENDPOINT, type EndpointCheck, checkEndpoint, loopbackTarget } from './endpoint';
export {
  OpenvikingClient,
  type OpenvikingClientOptions,
  type ServerIdentity,
  type VikingHit,
  type VikingMessage,
  type VikingPart,
  type VikingSearchResult,
} from './client';
export { type ConnectionState, RECONNECT_COOLDOWN_MS, AUTO_START_WAIT_MS } from './connection';
export { type OvcliProfile, listOvcliProfiles, readOvcliProfile } from './ovcli';
export { TOOL_NAMES, forgettableUri } from './tools';
export { VERSION } from './version';

/**
 * Create the provider. Settings are optional; the factory context (what `memory.provider:
 * openviking` hands the factory: env with `<home>/.env`, the `memory.openviking` block) fills in
 * the rest, so `isAvailable()` sees an endpoint kept in `.env` without a network call.
 */
export function createOpenvikingProvider(
  settings: OpenvikingProviderOptions = {},
  context?: Pick<ProviderFactoryContext, 'env' | 'providerConfig' | 'hermesHome'>,
): OpenvikingProvider {
  return new OpenvikingProvider(settings, context);
}

/** The factory plugin discovery calls (`memory.provider: openviking`). */
export const createProvider = createOpenvikingProvider;
