import { MemoryError } from '@hermes-memory/core';
import { loadPackage } from '../packages';
import { type FaultServerFactory, type FaultTarget, fakeFault } from './faults';

/** Client settings for fault runs: fast timeouts and small backoff so the suite stays short. */
const TIMEOUT_MS = 1_000;
const RETRIES = 2;

/** Remote-capable clients in the repo, loaded at run time (written in parallel). */
export async function loadFaultTargets(): Promise<{
  targets: FaultTarget[];
  unavailable: Array<{ client: string; reason: string }>;
}> {
  const targets: FaultTarget[] = [];
  const unavailable: Array<{ client: string; reason: string }> = [];
  const isClean = (err: unknown) => MemoryError.isInstance(err);

  const tryImport = async (load: () => Promise<unknown>) => {
    try {
      return (await load()) as Record<string, unknown>;
    } catch (err) {
      return { importError: err instanceof Error ? err.message : String(err) } as Record<string, unknown>;
    }
  };
  const emb = await tryImport(() => loadPackage('@hermes-memory/embeddings'));
  const OpenAIEmbedder = emb['OpenAIEmbedder'] as
    | (new (
        o: Record<string, unknown>,
      ) => { embed(t: string[], o?: { signal?: AbortSignal }): Promise<unknown> })
    | undefined;
  if (typeof OpenAIEmbedder === 'function') {
    targets.push({
      name: 'OpenAIEmbedder (@hermes-memory/embeddings)',
      call: (baseURL, signal) =>
        new OpenAIEmbedder({
          baseURL,
          apiKey: 'sk-fault-test',
          model: 'fake',
          timeoutMs: TIMEOUT_MS,
          maxRetries: RETRIES,
          retryBaseDelayMs: 10,
          maxRetryDelayMs: 50,
          env: {},
        }).embed(['hello world'], { signal }),
      isCleanError: isClean,
    });
  } else {
    unavailable.push({
      client: 'OpenAIEmbedder',
      reason: '@hermes-memory/embeddings does not export OpenAIEmbedder yet',
    });
  }

  const core = await tryImport(() => loadPackage('@hermes-memory/core'));
  const Llm = core['OpenAICompatibleLlmClient'] as
    | (new (
        o: Record<string, unknown>,
      ) => { chat(r: Record<string, unknown>): Promise<unknown> })
    | undefined;
  if (typeof Llm === 'function') {
    targets.push({
      name: 'OpenAICompatibleLlmClient (@hermes-memory/core)',
      call: (baseURL, signal) =>
        new Llm({
          baseURL,
          apiKey: 'sk-fault-test',
          model: 'fake',
          timeoutMs: TIMEOUT_MS,
          maxRetries: RETRIES,
        }).chat({
          messages: [{ role: 'user', content: 'hi' }],
          signal,
        }),
      isCleanError: isClean,
    });
  } else {
    unavailable.push({
      client: 'OpenAICompatibleLlmClient',
      reason: '@hermes-memory/core does not export OpenAICompatibleLlmClient yet',
    });
  }
  return { targets, unavailable };
}

type FakeOpenAILike = {
  url: string;
  requests: unknown[];
  fail(f: Record<string, unknown>): unknown;
  close(): Promise<void>;
};

/**
 * The testkit's scripted OpenAI-compatible server as a fault source (status, timeout, reset,
 * malformed); null when `@hermes-memory/testkit` does not export `startFakeOpenAI`.
 */
export async function loadTestkitFaultServer(): Promise<FaultServerFactory | null> {
  let mod: Record<string, unknown>;
  try {
    mod = await loadPackage('@hermes-memory/testkit');
  } catch {
    return null;
  }
  const start = mod['startFakeOpenAI'] as
    | ((o: Record<string, unknown>) => Promise<FakeOpenAILike>)
    | undefined;
  if (typeof start !== 'function') return null;
  return {
    name: 'testkit startFakeOpenAI',
    supports: () => true,
    async start(kind, mode) {
      const fake = await start({ fallback: () => 'ok' });
      fake.fail({ ...fakeFault(kind), count: mode === 'once' ? 1 : 1_000 });
      return {
        baseURL: fake.url,
        get requests() {
          return fake.requests.length;
        },
        close: () => fake.close(),
      };
    },
  };
}
