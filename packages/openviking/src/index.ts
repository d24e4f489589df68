/**
 * @hermes-memory/openviking — OpenViking (a context database that keeps knowledge as a
 * `viking://` file tree, extracting memories from committed sessions) as a Hermes memory
 * provider, over its HTTP API. Its fake server is `@hermes-memory/openviking/testing`.
 */
import type { ProviderFactoryContext } from '@hermes-memory/core';
import { OpenvikingProvider, type OpenvikingProviderOptions } from './openviking-provider';

export {
  OpenvikingClient,
  type OpenvikingClientOptions,
  type ServerIdentity,
  type VikingHit,
  type VikingMessage,
  type VikingPart,
  type VikingSearchResult,
} from './client';
export { AUTO_START_WAIT_MS, type ConnectionState, RECONNECT_COOLDOWN_MS } from './connection';
export {
  checkEndpoint,
  DEFAULT_ENDPOINT,
  type EndpointCheck,
  HOSTED_ENDPOINT,
  loopbackTarget,
} from './endpoint';
export {
  OpenvikingProvider,
  type OpenvikingProviderContext,
  type OpenvikingProviderOptions,
} from './openviking-provider';
export {
  identityProblem,
  type OpenvikingProviderSettings,
  type RecallSettings,
  type ResolvedOpenvikingSettings,
  resolveOpenvikingSettings,
  type SettingSource,
} from './openviking-settings';
export {
  type DiscoveredOvcliProfile,
  discoverOvcliProfiles,
  type OvcliProfile,
  readOvcliProfile,
} from './ovcli';
export { forgettableUri, TOOL_NAMES } from './tools';
export { VERSION } from './version';

/**
 * Create the provider. Settings are optional; the factory context (what `memory.provider:
 * openviking` hands the factory: env with `<home>/.env`, the `memory.openviking` block) fills in
 * the rest, so `isAvailable()` sees an endpoint kept in `.env` without a network call.
 */
export function createOpenvikingProvider(
  settings: OpenvikingProviderOptions = {},
  context?: Partial<Pick<ProviderFactoryContext, 'env' | 'providerConfig' | 'hermesHome' | 'logger'>>,
): OpenvikingProvider {
  return new OpenvikingProvider(settings, context);
}

/** The factory plugin discovery calls (`memory.provider: openviking`). */
export const createProvider = createOpenvikingProvider;
