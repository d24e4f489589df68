/**
 * Fault-injection hooks for remote providers: a loopback OpenAI-compatible server that answers
 * correctly or injects a fault per request, and a runner that drives any client through it and
 * records how the client behaved (recovered, failed cleanly, failed with a foreign error, hung).
 */
import { type FakeFault, reply, startFakeServer } from '@hermes-memory/testkit/http';

export const FAULT_KINDS = [
  'http500',
  'http503',
  'http429',
  'timeout',
  'reset',
  'malformed',
  'truncated',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Decides, per request (0-based count), whether to inject a fault. */
export interface FaultInjector {
  faultFor(requestIndex: number, path: string): FaultKind | null;
}

export const failFirst = (kind: FaultKind, n: number): FaultInjector => ({
  faultFor: (i) => (i < n ? kind : null),
});
export const failAlways = (kind: FaultKind): FaultInjector => ({ faultFor: () => kind });

export interface FaultServer {
  baseURL: string;
  requests: number;
  close(): Promise<void>;
}

function okBody(path: string, body: Record<string, unknown>): unknown {
  if (path.endsWith('/embeddings')) {
    const input = body['input'];
    const texts = Array.isArray(input) ? input : [input];
    return {
      object: 'list',
      model: body['model'] ?? 'fake',
      data: texts.map((_, index) => ({
        object: 'embedding',
        index,
        embedding: Array.from({ length: 8 }, (_, d) => (((index + 1) * (d + 1)) % 7) / 7),
      })),
      usage: { prompt_tokens: texts.length, total_tokens: texts.length },
    };
  }
  return {
    id: 'chatcmpl-fault',
    object: 'chat.completion',
    created: 0,
    model: body['model'] ?? 'fake',
    choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

/** The fake-server fault for a kind (all of them are the testkit base's). */
export function fakeFault(kind: FaultKind): FakeFault {
  switch (kind) {
    case 'http500':
    case 'http503':
      return { type: 'status', status: Number(kind.slice(4)) };
    case 'http429':
      return { type: 'status', status: 429, retryAfter: 0 };
    default:
      return { type: kind };
  }
}

/** Start the fault server on 127.0.0.1 (ephemeral port), on the testkit's fake-server base. */
export async function startFaultServer(injector: FaultInjector): Promise<FaultServer> {
  const server = await startFakeServer({
    name: 'bench fault server',
    errorBody: (_status, message) => ({ error: { message, type: 'server_error' } }),
    faultFor: (request, index) => {
      const kind = injector.faultFor(index, request.path);
      return kind ? fakeFault(kind) : null;
    },
  });
  for (const path of ['/v1/embeddings', '/v1/chat/completions']) {
    server.route('POST', path, (req) =>
      reply.json(okBody(path, (req.body ?? {}) as Record<string, unknown>)),
    );
  }
  return {
    baseURL: `${server.url}/v1`,
    get requests() {
      return server.requests.length;
    },
    close: () => server.close(),
  };
}

export interface FaultOutcome {
  client: string;
  scenario: string;
  /** Which server injected the fault: the testkit fake or the bench's own (for faults the testkit lacks). */
  server: string;
  outcome: 'recovered' | 'clean-error' | 'foreign-error' | 'hung';
  requests: number;
  ms: number;
  error?: string;
}

/** A client under test: a function that makes one call against `baseURL`. */
export interface FaultTarget {
  name: string;
  call(baseURL: string, signal: AbortSignal): Promise<unknown>;
  /** true when the error is the client's documented error type (e.g. APICallError / MemoryError). */
  isCleanError(err: unknown): boolean;
}

/** Starts a loopback server with the scenario's faults armed. */
export interface FaultServerFactory {
  name: string;
  supports(kind: FaultKind): boolean;
  start(kind: FaultKind, mode: 'once' | 'always'): Promise<FaultServer>;
}

/** The bench's fault server (the testkit's fake-server base): every fault kind. */
export const benchFaultServer: FaultServerFactory = {
  name: 'bench',
  supports: () => true,
  start: (kind, mode) => startFaultServer(mode === 'once' ? failFirst(kind, 1) : failAlways(kind)),
};

/** Run one call of `target` against a server armed by `injector` (or started by a factory). */
export async function runFaultScenario(
  target: FaultTarget,
  scenario: string,
  injector: FaultInjector | (() => Promise<FaultServer>),
  hangMs: number,
  serverName = 'bench',
): Promise<FaultOutcome> {
  const server = typeof injector === 'function' ? await injector() : await startFaultServer(injector);
  const ac = new AbortController();
  const t0 = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const hang = new Promise<'hung'>((resolve) => {
      timer = setTimeout(() => resolve('hung'), hangMs);
    });
    const call = target.call(server.baseURL, ac.signal).then(
      () => ({ ok: true as const }),
      (err: unknown) => ({ ok: false as const, err }),
    );
    const r = await Promise.race([call, hang]);
    const ms = performance.now() - t0;
    if (r === 'hung') {
      ac.abort();
      return {
        client: target.name,
        scenario,
        server: serverName,
        outcome: 'hung',
        requests: server.requests,
        ms,
      };
    }
    if (r.ok)
      return {
        client: target.name,
        scenario,
        server: serverName,
        outcome: 'recovered',
        requests: server.requests,
        ms,
      };
    const message = r.err instanceof Error ? `${r.err.name}: ${r.err.message}` : String(r.err);
    return {
      client: target.name,
      scenario,
      server: serverName,
      outcome: target.isCleanError(r.err) ? 'clean-error' : 'foreign-error',
      requests: server.requests,
      ms,
      error: message.slice(0, 200),
    };
  } finally {
    clearTimeout(timer);
    await server.close();
  }
}
