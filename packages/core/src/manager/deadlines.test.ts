import { describe, expect, it } from 'vitest';
import type { ProbeResult } from '../health/health';
import type { ChatMessage } from '../llm/types';
import { createRecordingLogger } from '../logging/logger';
import { MemoryProvider } from '../provider/memory-provider';
import type {
  HookOptions,
  InitContext,
  PrefetchOptions,
  SessionSwitchOptions,
  ShutdownOptions,
  SyncTurnOptions,
  ToolCallOptions,
  ToolSchema,
} from '../provider/types';
import { ManualClock } from '../resilience/clock';
import type { HealthChangeEvent } from './health-tracker';
import { MemoryManager } from './memory-manager';

const never = <T = never>() => new Promise<T>(() => {});
const tool = (name: string): ToolSchema => ({
  name,
  description: name,
  parameters: { type: 'object', properties: {} },
});

/** Settle-time of a promise in clock time (the agent's view: when did the call come back?). */
function track<T>(promise: Promise<T>, clock: ManualClock) {
  const state: { at?: number; value?: T; error?: unknown } = {};
  promise.then(
    (value) => {
      state.at = clock.now();
      state.value = value;
    },
    (error: unknown) => {
      state.at = clock.now();
      state.error = error;
    },
  );
  return state;
}

/** A remote-style provider: sync lands a few event-loop turns later, like a network write. */
class RemoteLike extends MemoryProvider {
  readonly name: string;
  readonly stored: string[] = [];
  seenAtSessionEnd = -1;
  seenAtSwitch = -1;
  constructor(name = 'remote') {
    super();
    this.name = name;
  }
  isAvailable(): boolean {
    return true;
  }
  initialize(): void {}
  getToolSchemas(): ToolSchema[] {
    return [];
  }
  override async syncTurn(user: string): Promise<void> {
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
    this.stored.push(user);
  }
  override onSessionEnd(): void {
    this.seenAtSessionEnd = this.stored.length;
  }
  override onSessionSwitch(): boolean {
    this.seenAtSwitch = this.stored.length;
    return true;
  }
}

describe('session boundaries run behind each provider queue (issue 13 defect 2)', () => {
  it('onSessionEnd sees every turn synced before it', async () => {
    // Before the fix the manager called onSessionEnd directly: the provider saw 0 of 2 turns.
    const m = new MemoryManager();
    const p = new RemoteLike();
    m.addProvider(p);
    m.syncAll('turn one', 'a');
    m.syncAll('turn two', 'b');
    await m.onSessionEnd([{ role: 'user', content: 'turn two' }]);
    expect(p.seenAtSessionEnd).toBe(2);
  });

  it('onSessionSwitch too, and turns synced after the switch come after it', async () => {
    const m = new MemoryManager();
    const p = new RemoteLike();
    m.addProvider(p);
    m.syncAll('turn one', 'a');
    m.syncAll('turn two', 'b');
    expect(await m.onSessionSwitch('s2', { reset: true })).toBe(true);
    expect(p.seenAtSwitch).toBe(2);
  });

  it('a boundary behind a hung write gives up at its deadline and takes itself off the queue', async () => {
    const clock = new ManualClock();
    const m = new MemoryManager({ clock, sessionBoundaryTimeoutMs: 2000, backgroundTimeoutMs: 60_000 });
    const p = new RemoteLike();
    p.syncTurn = () => never();
    let ended = false;
    p.onSessionEnd = () => {
      ended = true;
    };
    m.addProvider(p);
    m.syncAll('stuck turn', 'a');
    const end = track(m.onSessionEnd([]), clock);
    const switched = track(m.onSessionSwitch('s2'), clock);
    await clock.advance(1999);
    expect(end.at).toBeUndefined();
    await clock.advance(1);
    expect(end.at).toBe(2000);
    expect(switched.value).toBe(false);
    expect(m.hasPendingSessionSwitch).toBe(true);
    // Taken off the queue: when the stuck write finally gives up, the stale boundary does not run.
    await clock.advance(60_000);
    expect(ended).toBe(false);
    expect(m.getProviderHealth('remote')?.status).not.toBe('ok');
  });
});

/** Records the signal each hook receives; every hook can be made to hang. */
class SignalProbe extends MemoryProvider {
  readonly name = 'probe';
  readonly signals = new Map<string, AbortSignal | undefined>();
  hang = false;
  isAvailable(): boolean {
    return true;
  }
  initialize(_id: string, context: InitContext): Promise<void> | void {
    this.signals.set('initialize', context.initializeSignal);
    return this.hang ? never() : undefined;
  }
  getToolSchemas(): ToolSchema[] {
    return [tool('probe_tool')];
  }
  private hold<T>(hook: string, signal: AbortSignal | undefined, value: T): Promise<T> | T {
    this.signals.set(hook, signal);
    return this.hang ? never<T>() : value;
  }
  override prefetch(_q: string, o?: PrefetchOptions) {
    return this.hold('prefetch', o?.signal, 'recalled');
  }
  override queuePrefetch(_q: string, o?: PrefetchOptions) {
    return this.hold('queuePrefetch', o?.signal, undefined);
  }
  override syncTurn(_u: string, _a: string, o?: SyncTurnOptions) {
    return this.hold('syncTurn', o?.signal, undefined);
  }
  override handleToolCall(_n: string, _a: unknown, o?: ToolCallOptions) {
    return this.hold('handleToolCall', o?.signal, '{"success":true}');
  }
  override onTurnStart(_n: number, _m: string, info?: HookOptions) {
    return this.hold('onTurnStart', info?.signal, undefined);
  }
  override onSessionEnd(_m: readonly ChatMessage[], o?: HookOptions) {
    return this.hold('onSessionEnd', o?.signal, undefined);
  }
  override onSessionSwitch(_id: string, o: SessionSwitchOptions) {
    return this.hold('onSessionSwitch', o.signal, true);
  }
  override onPreCompress(_m: readonly ChatMessage[], o?: HookOptions) {
    return this.hold('onPreCompress', o?.signal, '');
  }
  override onMemoryWrite(
    _a: 'add' | 'replace' | 'remove',
    _t: 'memory' | 'user',
    _c: string,
    _m?: unknown,
    o?: HookOptions,
  ) {
    return this.hold('onMemoryWrite', o?.signal, undefined);
  }
  override onDelegation(_t: string, _r: string, o?: HookOptions) {
    return this.hold('onDelegation', o?.signal, undefined);
  }
  override shutdown(o?: ShutdownOptions) {
    this.signals.set('shutdown.timeoutMs', o?.timeoutMs as unknown as AbortSignal);
    return this.hold('shutdown', o?.signal, undefined);
  }
}

describe('every provider call has a deadline (issue 13 defect 3)', () => {
  it('every hook receives a signal; prefetch’s aborts at its budget', async () => {
    const clock = new ManualClock();
    const m = new MemoryManager({ clock, externalPrefetchTimeoutMs: 3000 });
    const p = new SignalProbe();
    m.addProvider(p);
    await m.initializeAll('s1', { hermesHome: '/nonexistent-home', env: {} });
    await m.onTurnStart(1, 'hello');
    expect(await m.prefetchAllRaw('what do I like')).toBe('recalled');
    await m.handleToolCall('probe_tool', {});
    m.syncAll('u', 'a');
    m.queuePrefetchAll('next');
    m.onMemoryWrite('add', 'user', 'likes tea');
    await m.onPreCompress([{ role: 'user', content: 'x' }]);
    await m.onDelegation('task', 'result');
    await m.onSessionSwitch('s2');
    await m.onSessionEnd([]);
    await m.shutdownAll();
    const hooks = [
      'initialize',
      'onTurnStart',
      'prefetch',
      'handleToolCall',
      'syncTurn',
      'queuePrefetch',
      'onMemoryWrite',
      'onPreCompress',
      'onDelegation',
      'onSessionSwitch',
      'onSessionEnd',
      'shutdown',
    ];
    for (const hook of hooks) expect(p.signals.get(hook), hook).toBeInstanceOf(AbortSignal);
    expect(p.signals.get('shutdown.timeoutMs')).toBe(5000);

    // The prefetch signal aborts when the budget is spent, with a TimeoutError.
    const m2 = new MemoryManager({ clock, externalPrefetchTimeoutMs: 3000 });
    const hung = new SignalProbe();
    hung.hang = true;
    m2.addProvider(hung);
    const recall = track(m2.prefetchAllRaw('query'), clock);
    await clock.advance(2999);
    expect(hung.signals.get('prefetch')?.aborted).toBe(false);
    await clock.advance(1);
    expect(hung.signals.get('prefetch')?.aborted).toBe(true);
    expect((hung.signals.get('prefetch')!.reason as Error).name).toBe('TimeoutError');
    expect(recall).toMatchObject({ at: 3000, value: '' });
  });

  it('a hung provider never hangs the agent: every call comes back at its budget', async () => {
    const clock = new ManualClock();
    const logger = createRecordingLogger();
    const budgets = {
      externalPrefetchTimeoutMs: 3000,
      initializeTimeoutMs: 5000,
      toolCallTimeoutMs: 7000,
      hookTimeoutMs: 1000,
      backgroundTimeoutMs: 4000,
      sessionBoundaryTimeoutMs: 2000,
      shutdownDrainMs: 500,
      shutdownTimeoutMs: 1500,
    };
    const m = new MemoryManager({ clock, logger, ...budgets });
    const p = new SignalProbe();
    p.hang = true;
    m.addProvider(p);
    const step = async <T>(call: () => Promise<T>, budget: number) => {
      const start = clock.now();
      const result = track(call(), clock);
      await clock.advance(budget - 1);
      expect(result.at, `returned before its budget of ${budget} ms`).toBeUndefined();
      await clock.advance(1);
      expect(result.at).toBe(start + budget);
      return result.value as T;
    };
    await step(() => m.initializeAll('s1', { hermesHome: '/nonexistent-home', env: {} }), 5000);
    expect(m.getProviderHealth('probe')).toMatchObject({ status: 'down' });
    expect(m.getProviderHealth('probe')?.reason).toMatch(
      /initialize failed: initialize timed out after 5000 ms/,
    );
    await step(() => m.onTurnStart(1, 'hi'), 1000);
    expect(await step(() => m.prefetchAllRaw('query'), 3000)).toBe('');
    const toolAnswer = await step(() => m.handleToolCall('probe_tool', {}), 7000);
    expect(JSON.parse(toolAnswer as string)).toEqual({
      success: false,
      error: "Memory tool 'probe_tool' timed out after 7000 ms.",
    });
    // syncAll returns at once whatever the provider does.
    m.syncAll('turn', 'reply');
    await step(() => m.onSessionEnd([]), 2000);
    const state = await step(() => m.shutdownAll(), 500 + 1500);
    expect(state.status).toBe('timeout');
    expect(state.timedOutProviders).toEqual(['probe']);
  });

  it('a caller abort (the host) ends a prefetch or a tool call at once, without blaming the provider', async () => {
    const clock = new ManualClock();
    const m = new MemoryManager({ clock });
    const p = new SignalProbe();
    p.hang = true;
    m.addProvider(p);
    const host = new AbortController();
    const recall = track(m.prefetchAllRaw('q', { signal: host.signal }), clock);
    const answer = track(m.handleToolCall('probe_tool', {}, { signal: host.signal }), clock);
    await clock.advance(10);
    host.abort(new Error('user pressed ctrl-c'));
    await clock.advance(0);
    expect(recall).toMatchObject({ at: 10, value: '' });
    expect(JSON.parse(answer.value as string).error).toMatch(/user pressed ctrl-c/);
    expect(m.getProviderHealth('probe')?.status).toBe('unknown');
  });
});

/** Tools depend on the mode read in initialize: context-only modes expose none. */
class ModalProvider extends MemoryProvider {
  readonly name = 'modal';
  private mode = 'hybrid';
  isAvailable(): boolean {
    return true;
  }
  initialize(_id: string, context: InitContext): void {
    this.mode = String(context.providerConfig?.mode ?? 'hybrid');
  }
  getToolSchemas(): ToolSchema[] {
    if (this.mode === 'context') return [];
    if (this.mode === 'tools-plus') return [tool('modal_search'), tool('modal_profile')];
    return [tool('modal_search')];
  }
  override handleToolCall(name: string): string {
    return JSON.stringify({ success: true, name, mode: this.mode });
  }
}

describe('tool routing after initialisation (issue 13 defect 5)', () => {
  it('prunes tools a provider no longer offers, adds ones it now offers', async () => {
    const m = new MemoryManager();
    const p = new ModalProvider();
    m.addProvider(p);
    expect(m.hasTool('modal_search')).toBe(true);
    await m.initializeAll('s1', {
      hermesHome: '/nonexistent-home',
      env: {},
      providerConfig: { mode: 'context' },
    });
    // Before the fix the route registered at addProvider survived: the model could call a tool
    // that the provider, in context mode, does not offer.
    expect(m.hasTool('modal_search')).toBe(false);
    expect(m.getAllToolNames()).toEqual([]);
    expect(JSON.parse(await m.handleToolCall('modal_search', {})).error).toBe(
      "No memory provider handles tool 'modal_search'",
    );
    await m.initializeAll('s2', {
      hermesHome: '/nonexistent-home',
      env: {},
      providerConfig: { mode: 'tools-plus' },
    });
    expect(m.getAllToolNames().sort()).toEqual(['modal_profile', 'modal_search']);
    expect(m.getAllToolSchemas().map((s) => s.name)).toEqual(['modal_search', 'modal_profile']);
  });
});

/** A provider whose backend can be switched off, with its own breaker-style view of health. */
class Flaky extends MemoryProvider {
  readonly name = 'flaky';
  failing = false;
  breakerOpen = false;
  isAvailable(): boolean {
    return true;
  }
  initialize(): void {}
  getToolSchemas(): ToolSchema[] {
    return [];
  }
  override prefetch(): string {
    if (this.failing) throw new Error('HTTP 503: service unavailable');
    return '';
  }
  override health() {
    return this.breakerOpen
      ? { status: 'down' as const, reason: 'circuit open after 5 failures', since: 0, consecutiveFailures: 5 }
      : null;
  }
  override probe(): ProbeResult | Promise<ProbeResult> {
    return this.failing
      ? { status: 'failed' as const, message: 'GET /health: ECONNREFUSED' }
      : { status: 'ok' as const, message: 'GET /health answered 200' };
  }
}

describe('runtime health', () => {
  it('is observed from calls, shown in describeRecall and recallStatuses, and pushed to the host', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const events: HealthChangeEvent[] = [];
    const logger = createRecordingLogger();
    const m = new MemoryManager({ clock, logger, onHealthChange: (e) => events.push(e) });
    const p = new Flaky();
    m.addProvider(p);
    await m.prefetchAllRaw('q');
    expect(m.healthReport()).toEqual([
      {
        provider: 'flaky',
        status: 'ok',
        since: clock.now(),
        consecutiveFailures: 0,
        lastSuccessAt: clock.now(),
      },
    ]);
    p.failing = true;
    await clock.advance(60_000);
    await m.prefetchAllRaw('q');
    expect(m.getProviderHealth('flaky')).toMatchObject({
      status: 'degraded',
      reason: 'prefetch failed: HTTP 503: service unavailable',
    });
    expect(m.describeRecall()).toBe(
      '⚠️ flaky — memory degraded: prefetch failed: HTTP 503: service unavailable',
    );
    await m.prefetchAllRaw('q');
    await m.prefetchAllRaw('q');
    expect(m.getProviderHealth('flaky')?.status).toBe('down');
    expect(m.recallStatuses()[0]).toMatchObject({
      provider: 'flaky',
      recall: null,
      health: { status: 'down' },
    });
    expect(events.map((e) => `${e.previous.status}→${e.health.status}`)).toEqual([
      'unknown→ok',
      'ok→degraded',
      'degraded→down',
    ]);
    expect(
      logger.records.some(
        (r) => r.level === 'warn' && r.message.startsWith("Memory provider 'flaky' is down"),
      ),
    ).toBe(true);
    // The provider's own report counts: an open breaker is "down" even while calls are skipped.
    p.failing = false;
    await m.prefetchAllRaw('q');
    expect(m.getProviderHealth('flaky')?.status).toBe('ok');
    p.breakerOpen = true;
    expect(m.getProviderHealth('flaky')).toMatchObject({
      status: 'down',
      reason: 'circuit open after 5 failures',
    });
  });

  it('probeProviders runs the explicit connection check within a deadline', async () => {
    const clock = new ManualClock();
    const m = new MemoryManager({ clock });
    const p = new Flaky();
    m.addProvider(p);
    expect(await m.probeProviders()).toEqual([
      { provider: 'flaky', status: 'ok', message: 'GET /health answered 200', latencyMs: 0 },
    ]);
    p.failing = true;
    const [failed] = await m.probeProviders();
    expect(failed).toMatchObject({ status: 'failed', message: 'GET /health: ECONNREFUSED' });
    expect(m.getProviderHealth('flaky')?.reason).toBe('probe failed: GET /health: ECONNREFUSED');
    p.probe = () => never();
    const probing = track(m.probeProviders({ timeoutMs: 500 }), clock);
    await clock.advance(500);
    expect((probing.value as Array<{ status: string; message: string }>)[0]).toMatchObject({
      status: 'failed',
      message: 'probe timed out after 500 ms',
    });
  });
});
