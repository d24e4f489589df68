import fs from 'node:fs';
import path from 'node:path';
import {
  type Embedder,
  ensureDir,
  type LlmClient,
  type Logger,
  readJsonConfig,
  UnsupportedFeatureError,
  writeJsonConfig,
} from '@hermes-memory/core';
import type { Memory } from 'mem0ai/oss';
import { type Mem0Hit, toHits } from '../text';
import { LlmBridge } from './llm-bridge';
import type { AddRequest, AddResult, Mem0Backend, SearchRequest } from './types';

/** Where OSS mode keeps its stores, under HERMES_HOME (0700; every file 0600). */
export const OSS_DIR = 'mem0_oss';
/** The reference's default local Qdrant path (§3.8.25). */
export const QDRANT_DIR = 'mem0_qdrant';
const COLLECTION = 'hermes';
const LIST_LIMIT = 1_000_000;
/** The embedder the vectors on disk were made with: a dimension change retires them (§3.8.26). */
const EMBEDDER_FILE = 'embedder.json';

type Block = Readonly<Record<string, unknown>>;

/** The `oss` block's vector store, resolved against HERMES_HOME. */
export type OssVectorStore =
  | { provider: 'memory'; dir: string }
  | { provider: 'qdrant'; path?: string; url?: string };

function section(oss: Block | undefined, key: string): { provider: string; config: Block } {
  const value = oss?.[key];
  if (value === undefined || value === null) return { provider: '', config: {} };
  if (typeof value !== 'object' || Array.isArray(value))
    throw new UnsupportedFeatureError(
      `Mem0 OSS ${key}`,
      `Mem0 setting "oss.${key}" must be an object {provider, config}.`,
    );
  const { provider, config } = value as { provider?: unknown; config?: unknown };
  return {
    provider: typeof provider === 'string' ? provider.trim().toLowerCase() : '',
    config: typeof config === 'object' && config !== null ? (config as Block) : {},
  };
}

/**
 * `oss.vector_store` for this home: `memory` (mem0's SQLite store, the default) lives in
 * `$HERMES_HOME/mem0_oss`; `qdrant` with neither a path nor a URL defaults to
 * `$HERMES_HOME/mem0_qdrant`, as the reference resolves it.
 */
export function resolveOssVectorStore(hermesHome: string, oss: Block | undefined): OssVectorStore {
  const { provider, config } = section(oss, 'vector_store');
  if (provider === 'qdrant') {
    const url = typeof config.url === 'string' && config.url.trim() !== '' ? config.url.trim() : undefined;
    const given =
      typeof config.path === 'string' && config.path.trim() !== '' ? config.path.trim() : undefined;
    if (url) return { provider: 'qdrant', url };
    return { provider: 'qdrant', path: given ?? path.join(hermesHome, QDRANT_DIR) };
  }
  if (provider === '' || provider === 'memory' || provider === 'sqlite') {
    const dir = typeof config.path === 'string' && config.path.trim() !== '' ? config.path.trim() : '';
    return { provider: 'memory', dir: dir ? path.resolve(hermesHome, dir) : path.join(hermesHome, OSS_DIR) };
  }
  throw new UnsupportedFeatureError(
    'Mem0 OSS vector store',
    `Mem0 OSS vector store "${provider}" is not supported here; use "memory" (a SQLite file under HERMES_HOME).`,
  );
}

export interface OssBackendOptions {
  hermesHome: string;
  oss: Block | undefined;
  /** Our embedder (the bundled Model2Vec unless the host injected another). */
  embedder: Embedder | undefined;
  /** The agent's LLM; without one, turns are stored verbatim (`infer: false`). */
  llm: LlmClient | undefined;
  llmTimeoutMs: number;
  telemetry: boolean;
  logger: Logger;
}

/**
 * Mem0's own algorithm (`mem0ai/oss` `Memory`) in this process, offline: vectors from our
 * `Embedder`, fact extraction by the agent's `LlmClient` through a loopback bridge (mem0's LLMs
 * only take a URL), vectors and history in SQLite files under HERMES_HOME at 0600. `Memory` takes
 * no signal: the provider bounds each call with a deadline and abandons it there.
 */
export class OssBackend implements Mem0Backend {
  readonly kind = 'oss' as const;

  private constructor(
    private readonly memory: Memory,
    private readonly bridge: LlmBridge | undefined,
  ) {}

  static async create(options: OssBackendOptions): Promise<OssBackend> {
    const store = resolveOssVectorStore(options.hermesHome, options.oss);
    if (store.provider === 'qdrant') {
      throw new UnsupportedFeatureError(
        'Mem0 OSS qdrant',
        `Mem0 OSS with Qdrant (${store.url ?? store.path}) is not supported here: mem0ai/oss has no local Qdrant files (the Python plugin's ${QDRANT_DIR} folder is Python-only). Set oss.vector_store.provider to "memory".`,
      );
    }
    for (const key of ['embedder', 'llm'] as const) {
      const { provider } = section(options.oss, key);
      if (provider !== '' && provider !== 'hermes') {
        throw new UnsupportedFeatureError(
          `Mem0 OSS ${key}`,
          `Mem0 OSS ${key} "${provider}" is not supported here: OSS mode uses the agent's ${key === 'llm' ? 'LLM' : 'embedder'} (leave oss.${key} out, or set its provider to "hermes").`,
        );
      }
    }
    const embedder = options.embedder;
    if (!embedder) {
      throw new UnsupportedFeatureError(
        'Mem0 OSS embedder',
        'Mem0 OSS mode needs an embedder: install @hermes-memory/embeddings (the bundled offline model) or pass one to the agent.',
      );
    }
    const files = prepareStore(store.dir, embedder, options.logger);
    if (!options.telemetry && process.env.MEM0_TELEMETRY === undefined) process.env.MEM0_TELEMETRY = 'false';
    // mem0 keeps an anonymous id in $MEM0_DIR/config.json (default ~/.mem0): keep it in the home.
    if (process.env.MEM0_DIR === undefined) process.env.MEM0_DIR = store.dir;
    const bridge = options.llm ? await LlmBridge.start(options.llm, options.llmTimeoutMs) : undefined;
    try {
      const sdk = await import('mem0ai/oss');
      const MemoryClass =
        sdk.Memory ?? (sdk as unknown as { default: { Memory: typeof Memory } }).default.Memory;
      const toVector = (v: Float32Array) => Array.from(v);
      const memory = new MemoryClass({
        version: 'v1.1',
        embedder: {
          provider: 'langchain',
          config: {
            model: {
              embedQuery: async (text: string) => toVector((await embedder.embed([text]))[0]!),
              embedDocuments: async (texts: string[]) => (await embedder.embed(texts)).map(toVector),
            },
          },
        },
        llm: {
          provider: 'openai',
          config: {
            apiKey: bridge?.apiKey ?? 'no-llm',
            // Never called without an LLM: adds are then verbatim (infer: false).
            baseURL: bridge?.baseURL ?? 'http://127.0.0.1:9/v1',
            model: options.llm?.model ?? 'none',
          },
        },
        vectorStore: {
          provider: 'memory',
          config: { collectionName: COLLECTION, dimension: embedder.dimensions, dbPath: files.vectors },
        },
        historyStore: { provider: 'sqlite', config: { historyDbPath: files.history } },
      } as ConstructorParameters<typeof Memory>[0]);
      // mem0 creates its entity store's schema on the first search; do it now, at initialize, so a
      // read in a read-only context (subagent, cron) never writes.
      await (memory as unknown as { getEntityStore?: () => Promise<unknown> }).getEntityStore?.();
      return new OssBackend(memory, bridge);
    } catch (error) {
      await bridge?.close();
      throw error;
    }
  }

  /** Whether adds can extract facts (an LLM is bridged). */
  get infers(): boolean {
    return this.bridge !== undefined;
  }

  async search(request: SearchRequest, signal: AbortSignal): Promise<Mem0Hit[]> {
    signal.throwIfAborted();
    return toHits(
      await this.memory.search(request.query, { filters: { user_id: request.userId }, topK: request.topK }),
    );
  }

  async add(request: AddRequest, signal: AbortSignal): Promise<AddResult> {
    signal.throwIfAborted();
    await this.memory.add(request.messages, {
      userId: request.userId,
      agentId: request.agentId,
      infer: request.infer && this.infers,
      ...(request.metadata && Object.keys(request.metadata).length > 0
        ? { metadata: { ...request.metadata } }
        : {}),
    });
    return { queued: false };
  }

  async update(memoryId: string, text: string, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    await this.memory.update(memoryId, text);
  }

  async delete(memoryId: string, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    await this.memory.delete(memoryId);
  }

  async list(userId: string, signal: AbortSignal): Promise<Mem0Hit[]> {
    signal.throwIfAborted();
    return toHits(await this.memory.getAll({ filters: { user_id: userId }, topK: LIST_LIMIT }));
  }

  async ping(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    await this.memory.getAll({ filters: { user_id: '__hermes_probe__' }, topK: 1 });
  }

  async close(): Promise<void> {
    await this.bridge?.close();
    // Memory has no close(): release its SQLite handles so the files can be moved or removed.
    const m = this.memory as unknown as {
      vectorStore?: { db?: { close?: () => void } };
      _entityStore?: { db?: { close?: () => void } };
      db?: { close?: () => void };
    };
    for (const handle of [m.vectorStore?.db, m._entityStore?.db, m.db]) {
      try {
        handle?.close?.();
      } catch {}
    }
  }
}

/**
 * The store's folder (0700) and files (0600, created before mem0 opens them; SQLite gives its
 * journal the same mode). When the embedder's dimension differs from the one the vectors on disk
 * were made with, those vectors are useless: the stale collection is moved aside (renamed, not
 * deleted, so nothing is lost) and a new one starts (§3.8.26, decision 0911).
 */
function prepareStore(dir: string, embedder: Embedder, logger: Logger) {
  ensureDir(dir, { mode: 0o700 });
  const vectors = path.join(dir, 'vector_store.db');
  const entities = path.join(dir, 'vector_store_entities.db');
  const history = path.join(dir, 'history.db');
  const recordFile = path.join(dir, EMBEDDER_FILE);
  const recorded = readJsonConfig(recordFile);
  const before = recorded.status === 'ok' ? recorded.data : {};
  const previous = typeof before.dimensions === 'number' ? before.dimensions : undefined;
  if (previous !== undefined && previous !== embedder.dimensions && fs.existsSync(vectors)) {
    const suffix = `.stale-${previous}d-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    for (const file of [vectors, entities]) {
      for (const part of ['', '-wal', '-shm', '-journal']) {
        if (fs.existsSync(file + part)) fs.renameSync(file + part, `${file}${suffix}${part}`);
      }
    }
    logger.warn(
      `Mem0 OSS: the embedder changed from ${previous} to ${embedder.dimensions} dimensions; the old vector store was moved to vector_store.db${suffix} and a new one started.`,
    );
  }
  for (const file of [vectors, entities, history]) {
    fs.closeSync(fs.openSync(file, 'a', 0o600));
    fs.chmodSync(file, 0o600);
  }
  if (previous !== embedder.dimensions || before.id !== embedder.id)
    writeJsonConfig(recordFile, { id: embedder.id, dimensions: embedder.dimensions });
  return { vectors, history };
}
