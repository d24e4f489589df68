/** Test-only helpers (not exported): a provider on a fake server in a temporary home. */
import { type AgentContext, type Clock, type InitContext, ManualClock } from '@hermes-memory/core';
import { type CollectedLogs, collectLogs, tempHermesHome } from '@hermes-memory/testkit';
import type { FakeServer } from '@hermes-memory/testkit/http';
import { afterEach } from 'vitest';
import { createOpenvikingProvider, type OpenvikingProvider, type OpenvikingProviderOptions } from '../index';
import { type FakeOpenvikingOptions, type FakeOpenvikingState, startFakeOpenviking } from '../testing';

export interface Rig {
  backend: FakeServer<FakeOpenvikingState>;
  provider: OpenvikingProvider;
  home: string;
  logs: CollectedLogs;
  clock: Clock;
  /** Another provider on the same home (a second run), initialised. */
  open(
    options?: OpenvikingProviderOptions & { sessionId?: string; agentContext?: AgentContext },
  ): Promise<OpenvikingProvider>;
  close(): Promise<void>;
}

export function initContext(
  home: string,
  logs: CollectedLogs,
  agentContext: AgentContext = 'primary',
): InitContext {
  return { hermesHome: home, platform: 'cli', agentContext, logger: logs.logger, env: {} };
}

/** A fake server, a home and an initialised, connected provider (`clock`: a ManualClock unless `realClock`). */
export async function rig(
  options: {
    fake?: FakeOpenvikingOptions;
    provider?: OpenvikingProviderOptions;
    sessionId?: string;
    agentContext?: AgentContext;
    realClock?: boolean;
    connect?: boolean;
  } = {},
): Promise<Rig> {
  const backend = await startFakeOpenviking(options.fake);
  const home = tempHermesHome('hm-openviking-');
  const logs = collectLogs();
  const clock = options.realClock ? undefined : new ManualClock(1_000_000);
  const opened: OpenvikingProvider[] = [];
  const open: Rig['open'] = async (extra = {}) => {
    const provider = createOpenvikingProvider({
      endpoint: backend.url,
      autoStart: false,
      timeoutMs: 2000,
      ...(clock ? { clock } : {}),
      ...(options.fake?.apiKey ? { apiKey: options.fake.apiKey } : {}),
      ...options.provider,
      ...extra,
    });
    await provider.initialize(
      extra.sessionId ?? options.sessionId ?? 's1',
      initContext(home.path, logs, extra.agentContext ?? options.agentContext),
    );
    opened.push(provider);
    if (options.connect !== false) await provider.idle();
    return provider;
  };
  const provider = await open();
  return {
    backend,
    provider,
    home: home.path,
    logs,
    clock: clock ?? ({} as Clock),
    open,
    async close() {
      // The backend first: requests it holds open (hang faults) fail at once instead of waiting
      // for a ManualClock that no longer moves.
      await backend.close();
      for (const p of opened) {
        let done = false;
        const closing = p.shutdown({ timeoutMs: 1000 }).finally(() => (done = true));
        if (clock) await advanceUntil(clock, () => done, { stepMs: 1000 });
        await closing;
      }
      home.cleanup();
    },
  };
}

/** `rig` for one test file: every rig it opens is closed after each test. */
export function rigPerTest(): (options?: Parameters<typeof rig>[0]) => Promise<Rig> {
  const rigs: Rig[] = [];
  afterEach(async () => {
    for (const r of rigs.splice(0)) await r.close();
  });
  return async (options = {}) => {
    const r = await rig(options);
    rigs.push(r);
    return r;
  };
}

/** A transcript turn with a tool call and its result. */
export function toolTurn(user: string, reply: string) {
  return [
    { role: 'user' as const, content: user },
    {
      role: 'assistant' as const,
      content: '',
      tool_calls: [
        { id: 'c1', type: 'function' as const, function: { name: 'terminal', arguments: '{"cmd":"ls"}' } },
        {
          id: 'c2',
          type: 'function' as const,
          function: { name: 'viking_search', arguments: '{"query":"x"}' },
        },
        {
          id: 'c3',
          type: 'function' as const,
          function: { name: 'web_fetch', arguments: '{"url":"https://a.example"}' },
        },
      ],
    },
    { role: 'tool' as const, tool_call_id: 'c1', content: 'file-a\nfile-b' },
    { role: 'tool' as const, tool_call_id: 'c2', content: '{"results":[]}' },
    { role: 'assistant' as const, content: reply },
  ];
}

/**
 * Drive a ManualClock until `done()`: fire timers that are due within `stepMs` (poll intervals),
 * and otherwise yield to real I/O (a request in flight), never jumping to a request's timeout.
 */
export async function advanceUntil(
  clock: ManualClock,
  done: () => boolean,
  options: {
    stepMs?: number;
    maxClockMs?: number;
    /**
     * While true the clock stands still and real time passes instead: for a step that waits on
     * another process (a server being spawned), which the clock must not race past.
     */
    hold?: () => boolean;
  } = {},
): Promise<void> {
  const step = options.stepMs ?? 500;
  const limit = clock.now() + (options.maxClockMs ?? 120_000);
  for (let i = 0; i < 200_000 && !done(); i++) {
    if (options.hold?.()) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      continue;
    }
    const next = clock.nextTimerAt;
    if (next !== undefined && next - clock.now() <= step) await clock.advance(next - clock.now());
    else await new Promise((resolve) => setImmediate(resolve));
    if (clock.now() > limit)
      throw new Error(`advanceUntil: not done after ${options.maxClockMs ?? 120_000} ms of clock time`);
  }
  if (!done()) throw new Error('advanceUntil: gave up');
}
