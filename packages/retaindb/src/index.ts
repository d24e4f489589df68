/**
 * @hermes-memory/retaindb — RetainDB cloud memory behind a durable local write-behind queue:
 * every turn is committed to `$HERMES_HOME/retaindb_queue.db` before `syncTurn` returns and sent
 * by a background writer with an idempotency key. Its fake API is `@hermes-memory/retaindb/testing`.
 */
import type { ProviderFactoryContext } from '@hermes-memory/core';
import { RetaindbProvider } from './provider';
import type { RetaindbProviderSettings } from './settings';

export { RetaindbProvider, type RetaindbProviderContext } from './provider';
export {
  RETAINDB_DEFAULTS,
  type ResolvedRetaindbSettings,
  type RetaindbProviderSettings,
  projectFor,
  resolveRetaindbSettings,
} from './settings';
export { RetaindbClient, type RetaindbClientOptions, type RetaindbMessage, keyedPath } from './client';
export { buildOverlay, reasoningLevel } from './recall';
export { TOOL_SCHEMAS } from './tools';
export {
  DurableQueue,
  type DurableQueueOptions,
  type QueueRow,
  type QueueSender,
  type QueueStats,
} from './queue/durable-queue';
export { QUEUE_FILE, openQueueDatabase } from './queue/queue-db';
export { acquireQueue, type QueueHandle } from './queue/registry';

/**
 * Create the provider. Settings are optional; the factory context (what `memory.provider:
 * retaindb` hands the factory: env with `<home>/.env`, the `memory.retaindb` block) fills in
 * the rest, so `isAvailable()` sees a key kept in `.env` without reading any file.
 */
export function createRetaindbProvider(
  settings: RetaindbProviderSettings = {},
  context?: Partial<Pick<ProviderFactoryContext, 'env' | 'providerConfig' | 'hermesHome'>>,
): RetaindbProvider {
  return new RetaindbProvider(settings, context);
}

/** The factory plugin discovery calls (`memory.provider: retaindb`). */
export const createProvider = createRetaindbProvider;

// package.json's version, put in by the build (tsup.preset.ts); running from source reports 0.0.0-dev.
declare const __PACKAGE_VERSION__: string | undefined;
export const VERSION: string = typeof __PACKAGE_VERSION__ === 'string' ? __PACKAGE_VERSION__ : '0.0.0-dev';
