import { describe, expect, it } from 'vitest';
import { SettingsError } from '../errors/memory-error';
import { createRecordingLogger } from '../logging/logger';
import { MemoryProvider } from '../provider/memory-provider';
import type { ToolSchema } from '../provider/types';
import { ManualClock } from '../resilience/clock';
import { MemoryManager } from './memory-manager';

/** A provider whose first `syncTurn` hangs (ignoring its signal) until released. */
class HeldBackend extends MemoryProvider {
  readonly name = 'held';
  readonly calls: string[] = [];
  private release: (() => void) | undefined;
  isAvailable(): boolean {
    return true;
  }
  initialize(): void {}
  getToolSchemas(): ToolSchema[] {
    return [];
  }
  override syncTurn(user: string): Promise<void> | void {
    this.calls.push(user);
    if (this.calls.length > 1) return;
    return new Promise<void>((resolve) => {
      this.release = resolve;
    });
  }
  override queuePrefetch(query: string): void {
    this.calls.push(`prefetch ${query}`);
  }
  override onSessionEnd(): void {
    this.calls.push('session end');
  }
  recover(): void {
    this.release?.();
  }
}

function setup(maxQueuedTasks: number) {
  const clock = new ManualClock();
  const logger = createRecordingLogger();
  const m = new MemoryManager({
    clock,
    logger,
    maxQueuedTasks,
    backgroundTimeoutMs: 60_000,
    sessionBoundaryTimeoutMs: 60_000,
  });
  const p = new HeldBackend();
  m.addProvider(p);
  const warnings = () => logger.records.filter((r) => r.level === 'warn').map((r) => r.message);
  return { clock, logger, m, p, warnings };
}

describe('a provider queue holds at most maxQueuedTasks waiting tasks (issue 14: what the manager holds while calls hang)', () => {
  it('drops the oldest waiting task past the limit, warns once, degrades health, keeps the order of the rest', async () => {
    // Before: every turn behind a hung call stayed queued, ~0.74 KB each, for as long as it hung.
    const { clock, logger, m, p, warnings } = setup(3);
    m.syncAll('turn 1', 'a');
    await clock.advance(0); // turn 1 starts and hangs
    for (let n = 2; n <= 6; n++) m.syncAll(`turn ${n}`, 'a');
    // Once per episode (the health change is its own line).
    const dropWarnings = warnings().filter((w) => w.startsWith("Memory provider 'held': "));
    expect(dropWarnings).toEqual([
      "Memory provider 'held': 3 tasks queued behind a call that has not finished; dropping the oldest (first a 'sync').",
    ]);
    const health = m.getProviderHealth('held');
    expect(health?.status).toBe('degraded');
    expect(health?.reason).toContain('dropping the oldest');

    p.recover();
    expect(await m.flushPending()).toBe(true);
    // Turns 2 and 3 were the oldest waiting when 5 and 6 arrived; the rest arrive in order.
    expect(p.calls).toEqual(['turn 1', 'turn 4', 'turn 5', 'turn 6']);
    expect(m.getProviderHealth('held')?.status).toBe('ok');

    m.syncAll('turn 7', 'a');
    expect(logger.records.map((r) => r.message)).toContain(
      "Memory provider 'held' queue is below 3 again; 2 queued tasks were dropped.",
    );
    const state = await m.shutdownAll();
    expect(state.droppedTasks).toBe(2);
    expect(p.calls.at(-1)).toBe('turn 7');
  });

  it('never drops a session boundary: it runs after the call ahead of it, with the newest turn', async () => {
    const { clock, m, p } = setup(2);
    m.syncAll('turn 1', 'a');
    await clock.advance(0);
    m.syncAll('turn 2', 'a');
    const ended = m.onSessionEnd([]);
    m.queuePrefetchAll('next');
    m.syncAll('turn 3', 'a');
    p.recover();
    await ended;
    expect(await m.flushPending()).toBe(true);
    // Full at the prefetch (turn 2 dropped) and at turn 3 (the prefetch dropped); the boundary stays.
    expect(p.calls).toEqual(['turn 1', 'session end', 'turn 3']);
    expect((await m.shutdownAll()).droppedTasks).toBe(2);
  });

  it('Infinity keeps every task; a limit below 1 or a fraction is a SettingsError', async () => {
    const { clock, m, p } = setup(Number.POSITIVE_INFINITY);
    m.syncAll('turn 1', 'a');
    await clock.advance(0);
    for (let n = 2; n <= 50; n++) m.syncAll(`turn ${n}`, 'a');
    p.recover();
    expect(await m.flushPending()).toBe(true);
    expect(p.calls).toHaveLength(50);
    expect((await m.shutdownAll()).droppedTasks).toBe(0);
    for (const bad of [0, 1.5, -1, Number.NaN])
      expect(() => new MemoryManager({ maxQueuedTasks: bad })).toThrow(SettingsError);
  });
});

/** Like hivemind: a recall of its own that can hang, and no turns or mirrored writes to store. */
class PrefetchOnly extends MemoryProvider {
  readonly name = 'prefetch-only';
  prefetches = 0;
  private release: (() => void) | undefined;
  isAvailable(): boolean {
    return true;
  }
  initialize(): void {}
  getToolSchemas(): ToolSchema[] {
    return [];
  }
  override queuePrefetch(): Promise<void> {
    this.prefetches += 1;
    return new Promise<void>((resolve) => {
      this.release = resolve;
    });
  }
  recover(): void {
    this.release?.();
  }
}

describe('hooks a provider inherits as no-ops are not queued', () => {
  it('turns and mirrored writes behind a hung prefetch of a provider that stores neither are not "dropped"', async () => {
    const clock = new ManualClock();
    const logger = createRecordingLogger();
    const m = new MemoryManager({ clock, logger, maxQueuedTasks: 2, backgroundTimeoutMs: 60_000 });
    const quiet = new PrefetchOnly();
    m.addProvider(quiet);
    m.queuePrefetchAll('hello');
    await clock.advance(0); // the prefetch starts and hangs
    for (let n = 1; n <= 5; n++) {
      m.syncAll(`turn ${n}`, 'a');
      m.onMemoryWrite('add', 'memory', `fact ${n}`);
    }
    // Before, five no-op syncs and five no-op mirrors queued behind the prefetch: past the limit of
    // two, a warning about dropped work and a degraded health for a provider that lost nothing.
    expect(logger.records.filter((r) => r.level === 'warn')).toEqual([]);
    expect(m.getProviderHealth('prefetch-only')?.status).not.toBe('degraded');
    quiet.recover();
    expect(await m.flushPending()).toBe(true);
    expect(quiet.prefetches).toBe(1);
    expect((await m.shutdownAll()).droppedTasks).toBe(0);
  });
});
