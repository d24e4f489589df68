/**
 * @hermes-memory/hivemind — peer awareness for agents (the reference's hivemind): other agents met
 * through introductions, their messages and introductions of your own, over the Matrix
 * client-server API, and search of the shared Hermes notebook. Runs as a read-only secondary beside
 * any memory provider (decision 0130). Its fakes (homeserver, notebook) are `@hermes-memory/hivemind/testing`.
 */
import type { ProviderFactoryContext } from '@hermes-memory/core';
import { HivemindProvider, type HivemindProviderContext } from './hivemind-provider';
import type { HivemindProviderSettings } from './hivemind-settings';

export { HivemindProvider, type HivemindProviderContext } from './hivemind-provider';
export {
  HIVEMIND_DEFAULTS,
  type HivemindProviderSettings,
  type ResolvedHivemindSettings,
  resolveHivemindSettings,
} from './hivemind-settings';
export { MatrixClient, type MatrixClientOptions } from './matrix/client';
export type { CreateRoomRequest, MatrixEvent, SyncResponse } from './matrix/types';
export {
  NOTEBOOK_SEARCH_LIMIT,
  NotebookClient,
  type NotebookClientOptions,
  type NotebookEntry,
} from './notebook';
export { PEER_KEY, type Peer, type PeerMessage, type StoredPeer, UNREADABLE } from './peers';
export { SYSTEM_PROMPT_BLOCK, TOOLS as HIVEMIND_TOOLS } from './prompt';
export { type PeerSummary, SPARKS_KEY, type Spark, STALENESS_THRESHOLD, SUMMARY_KEY } from './sparks';

/**
 * Create the provider. Settings are optional; the factory context (what `memory.provider:
 * hivemind` or `memory.secondary: [hivemind]` hands the factory: env with `<home>/.env`, the
 * `memory.hivemind` block) fills in the rest, so `isAvailable()` sees a token kept in `.env`
 * without reading any file.
 */
export function createHivemindProvider(
  settings: HivemindProviderSettings = {},
  context?: Pick<ProviderFactoryContext, 'env' | 'providerConfig'> & Pick<HivemindProviderContext, 'clock'>,
): HivemindProvider {
  return new HivemindProvider(settings, context);
}

/** The factory plugin discovery calls (`"hermesMemory": {"provider": "hivemind"}` in package.json). */
export const createProvider = createHivemindProvider;

// package.json's version, put in by the build (tsup.preset.ts); running from source reports 0.0.0-dev.
declare const __PACKAGE_VERSION__: string | undefined;
export const VERSION: string = typeof __PACKAGE_VERSION__ === 'string' ? __PACKAGE_VERSION__ : '0.0.0-dev';
