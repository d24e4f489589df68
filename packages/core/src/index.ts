/**
 * @hermes-memory/core — the contract every memory provider implements, the manager that drives
 * them, and what they all share (fencing, the write scanner, LLM and embedder interfaces, config).
 */
export * from './errors';
export * from './logging';
export * from './tools';
export { MemoryProvider, canWrite, isMemoryProvider, providerConfigPaths } from './provider/memory-provider';
export {
  createProviderFactoryContext,
  type ProviderFactoryContext,
  type ProviderFactoryContextOptions,
} from './provider/factory-context';
export type * from './provider/types';
export type {
  ChatContentPart,
  ChatMessage,
  ChatRequest,
  ChatResponse,
  ChatToolCall,
  LlmClient,
} from './llm/types';
export { type Embedder, cosineSimilarity } from './embeddings/types';
export { type EmbeddingsImporter, loadDefaultEmbedder } from './embeddings/default-embedder';

// The write scanner and the trivial-prompt check.
export * from './scanner';

// Safe file writes: atomic, complete or failed (ENOSPC/EFBIG), never through a symbolic link.
export * from './fs';

// SQLite busy handling shared by every store and the CLI.
export * from './sqlite';

// Config, .env and HERMES_HOME, compatible with the Python agent's files.
export * from './config';

// Background work: ordered queues, the prefetch slot, timeouts.
export * from './background';

// Resilience: an injectable clock, deadlines, retry with backoff, circuit breaker, bounded polling.
export * from './resilience';

// A provider's durable outbox: undelivered writes survive shutdown, crash and kill -9 (decision 0115).
export * from './outbox';

// Runtime health of providers (separate from availability) and connection probes.
export * from './health';

// A JSON HTTP client over the global fetch, with APICallError mapping and redaction.
export * from './http';

// Child processes: argv only, no shell, a process-group timeout, output caps; executable lookup.
export * from './process';

// Fencing: the <memory-context> block, sanitising and the streaming scrubber.
export * from './fencing';

// The manager that drives providers through the lifecycle.
export * from './manager';

// The OpenAI-compatible LlmClient.
export * from './llm';

// Provider resolution: memory.provider → an installed package.
export * from './plugins';

// The provider seam of the hermes-memory CLI: commands, status, doctor, export/import, post-setup.
export * from './provider-cli';

// SQLite rows in the portable export format, shared by every SQLite-backed store.
export * from './portable';

// package.json's version, put in by the build (tsup.preset.ts); running from source reports 0.0.0-dev.
declare const __PACKAGE_VERSION__: string | undefined;
export const VERSION: string = typeof __PACKAGE_VERSION__ === 'string' ? __PACKAGE_VERSION__ : '0.0.0-dev';
