/**
 * @hermes-memory/supermemory — Supermemory as a Hermes memory provider, through the official
 * `supermemory` SDK: profile and semantic recall, container tags, one conversation ingest per
 * session, eight tools. Its protocol-faithful fake is `@hermes-memory/supermemory/testing`.
 */
import type { ProviderFactoryContext } from '@hermes-memory/core';
import { SupermemoryProvider, type SupermemoryProviderOptions } from './provider';

export {
  type ConversationMessage,
  type MemoryHit,
  type Profile,
  SOURCE_HEADER,
  SupermemoryClient,
  type SupermemoryClientOptions,
} from './client';
export {
  CONFIG_FILE,
  configToJson,
  DEFAULT_BASE_URL,
  readSupermemoryJson,
  resolveSupermemoryConfig,
  type SearchMode,
  type SupermemoryConfig,
  type SupermemoryProviderSettings,
  saveSupermemoryJson,
} from './config';
export { containerWhitelist, resolveContainerTag, sanitizeContainerTag } from './containers';
export { DEFAULT_HELD_LIMITS, type HeldLimits } from './held';
export {
  type PrefetchMode,
  profileQuery,
  SupermemoryProvider,
  type SupermemoryProviderContext,
  type SupermemoryProviderOptions,
} from './provider';
export { formatRecallBlock, relativeTime } from './recall';
export { cleanCapturedText, DEFAULT_ENTITY_CONTEXT, detectCategory, hermesMetadata } from './text';
export { TOOL_ALIASES, TOOL_NAMES } from './tools';

/**
 * Create the provider. The factory context (what `memory.provider: supermemory` hands the
 * factory: HERMES_HOME, env with `<home>/.env`, the `memory.supermemory` block) fills in what the
 * options leave out, so `isAvailable()` sees a key kept in `.env` without reading any file.
 */
export function createSupermemoryProvider(
  options: SupermemoryProviderOptions = {},
  context?: Partial<Pick<ProviderFactoryContext, 'env' | 'providerConfig' | 'hermesHome'>>,
): SupermemoryProvider {
  return new SupermemoryProvider(options, context ?? {});
}

/** The factory plugin discovery calls (`"hermesMemory": {"provider": "supermemory"}`). */
export const createProvider = createSupermemoryProvider;

// package.json's version, put in by the build (tsup.preset.ts); running from source reports 0.0.0-dev.
declare const __PACKAGE_VERSION__: string | undefined;
export const VERSION: string = typeof __PACKAGE_VERSION__ === 'string' ? __PACKAGE_VERSION__ : '0.0.0-dev';
