/**
 * @hermes-memory/byterover — ByteRover memory through the `brv` CLI: a persistent knowledge tree
 * (markdown files under `<project>/.brv/context-tree`) that brv's own LLM agent curates and
 * queries. The provider drives `brv query`, `curate`, `search` and `status` as child processes.
 * Its fake `brv` is `@hermes-memory/byterover/testing`.
 */
import type { ProviderFactoryContext } from '@hermes-memory/core';
import { ByteroverProvider } from './byterover-provider';
import type { ByteroverProviderSettings } from './byterover-settings';

export {
  BRV_NOT_FOUND,
  BRV_PASSED_VARIABLES,
  BrvCli,
  type BrvCliOptions,
  type BrvCommand,
} from './brv/brv-cli';
export type { BrvAnswer, BrvEvent, BrvFailureKind, BrvOutcome, BrvSearchHit } from './brv/output';
export {
  ByteroverProvider,
  type ByteroverProviderContext,
  FIRST_TURN_WAIT_MS,
  formatRecall,
  MAX_QUERY_CHARS,
  recallQuery,
  SHUTDOWN_WAIT_MS,
  TURN_CURATE_WAIT_MS,
} from './byterover-provider';
export {
  BRV_CANDIDATES,
  BYTEROVER_DEFAULTS,
  type ByteroverPrefetchMode,
  type ByteroverProviderSettings,
  type ResolvedByteroverSettings,
  resolveByteroverSettings,
} from './byterover-settings';
export { TOOL_NAMES } from './tools';

/**
 * Create the provider. Settings are optional; the factory context (what `memory.provider:
 * byterover` hands the factory: env with `<home>/.env`, the `memory.byterover` block, the home)
 * fills in the rest. The brv executable is looked up here, once, so `isAvailable()` is free of I/O.
 */
export function createByteroverProvider(
  settings: ByteroverProviderSettings = {},
  context?: Partial<Pick<ProviderFactoryContext, 'env' | 'providerConfig' | 'hermesHome'>>,
): ByteroverProvider {
  return new ByteroverProvider(settings, context ?? {});
}

/**
 * The factory plugin discovery calls (`memory.provider: byterover` in config.yaml, with this
 * package installed).
 */
export const createProvider = createByteroverProvider;

// package.json's version, put in by the build (tsup.preset.ts); running from source reports 0.0.0-dev.
declare const __PACKAGE_VERSION__: string | undefined;
export const VERSION: string = typeof __PACKAGE_VERSION__ === 'string' ? __PACKAGE_VERSION__ : '0.0.0-dev';
