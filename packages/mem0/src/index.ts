/**
 * @hermes-memory/mem0 — Mem0 as a Hermes memory provider: the Mem0 Platform through the official
 * `mem0ai` SDK, a self-hosted Mem0 server over its REST API, or `mem0ai/oss` in process (our
 * embedder, the agent's LLM). Fact extraction, semantic search, four tools, nothing on the hot path
 * after the first turn.
 */
import type { ProviderFactoryContext } from '@hermes-memory/core';
import type { Mem0ProviderSettings } from './config';
import { Mem0Provider } from './provider';

export {
  DEFAULT_USER_ID,
  MEM0_CONFIG_FILE,
  MEM0_DEFAULTS,
  type Mem0BackendKind,
  type Mem0Mode,
  type Mem0ProviderSettings,
  type ResolvedMem0Config,
  resolveMem0Config,
  resolveUserId,
} from './config';
export { OSS_DIR, type OssVectorStore, QDRANT_DIR, resolveOssVectorStore } from './backend/oss';
export { Mem0Provider } from './provider';
export { formatRecallBlock, type Mem0Hit, toHits, truncateAtSentence, unwrapResults } from './text';
export { TOOL_NAMES, TOOL_SCHEMAS } from './tools';

/**
 * Create the provider. `context` (from plugin discovery: HERMES_HOME, the environment with
 * `<home>/.env`, `memory.mem0` of config.yaml) lets `isAvailable()` answer without I/O.
 */
export function createMem0Provider(
  settings: Mem0ProviderSettings = {},
  context?: ProviderFactoryContext,
): Mem0Provider {
  return new Mem0Provider(settings, context);
}

/** The factory plugin discovery calls (`memory.provider: mem0`). */
export const createProvider = createMem0Provider;

// package.json's version, put in by the build (tsup.preset.ts); running from source reports 0.0.0-dev.
declare const __PACKAGE_VERSION__: string | undefined;
export const VERSION: string = typeof __PACKAGE_VERSION__ === 'string' ? __PACKAGE_VERSION__ : '0.0.0-dev';
