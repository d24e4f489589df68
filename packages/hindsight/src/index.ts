/**
 * @hermes-memory/hindsight — Hindsight (Vectorize) as a Hermes memory provider, through the
 * official `@vectorize-io/hindsight-client`: banks, retain / recall / reflect, one document per
 * session appended turn by turn, read-after-write before the next turn's recall. Cloud and
 * self-hosted (`local_external`) servers. Its protocol-faithful fake is
 * `@hermes-memory/hindsight/testing`.
 */
import type { ProviderFactoryContext } from '@hermes-memory/core';
import { HindsightProvider, type HindsightProviderOptions } from './provider';

export { type BankPlaceholders, resolveBankId, sanitizeBankSegment } from './banks';
export {
  clearVersionCache,
  HindsightApi,
  type HindsightApiOptions,
  type RecallHit,
  type RetainItem,
} from './client';
export {
  CONFIG_FILE,
  type ConfigSource,
  configToJson,
  DEFAULT_CLOUD_URL,
  DEFAULT_LOCAL_URL,
  type HindsightConfig,
  type HindsightMode,
  type HindsightProviderSettings,
  legacyConfigPath,
  type MemoryMode,
  normalizeObservationScopes,
  normalizeTags,
  profileConfigPath,
  readHindsightConfigSource,
  resolveHindsightConfig,
  saveHindsightConfig,
} from './config';
export {
  GLYPH,
  HindsightProvider,
  type HindsightProviderContext,
  type HindsightProviderOptions,
  SAVING_STATUS,
} from './provider';
export { DEFAULT_PREAMBLE, formatRecallBlock } from './recall';
export { eventTimestamp, mintDocumentId } from './retain';
export { NO_MEMORIES, TOOL_NAMES } from './tools';
export { APPEND_MIN_SERVER, versionAtLeast } from './version';

/**
 * Create the provider. The factory context (what `memory.provider: hindsight` hands the factory:
 * HERMES_HOME, env with `<home>/.env`, the `memory.hindsight` block) fills in what the options
 * leave out, so `isAvailable()` sees a key kept in `.env` without a request.
 */
export function createHindsightProvider(
  options: HindsightProviderOptions = {},
  context?: Partial<Pick<ProviderFactoryContext, 'env' | 'providerConfig' | 'hermesHome'>>,
): HindsightProvider {
  return new HindsightProvider(options, context ?? {});
}

/** The factory plugin discovery calls (`"hermesMemory": {"provider": "hindsight"}`). */
export const createProvider = createHindsightProvider;

// package.json's version, put in by the build (tsup.preset.ts); running from source reports 0.0.0-dev.
declare const __PACKAGE_VERSION__: string | undefined;
export const VERSION: string = typeof __PACKAGE_VERSION__ === 'string' ? __PACKAGE_VERSION__ : '0.0.0-dev';
