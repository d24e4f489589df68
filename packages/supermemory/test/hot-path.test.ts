import { MemoryManager, silentLogger } from '@hermes-memory/core';
import { afterEach, describe, expect, it } from 'vitest';
import { SupermemoryProvider } from '../src';
import { fake, home, KEY } from './helpers';

const original = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = original;
});

/** Every URL the SDK fetches from now on (it resolves the global per call). */
function watchFetch(): string[] {
  const seen: string[] = [];
  globalThis.fetch = (input, init) => {
    seen.push(String(input instanceof Request ? input.url : input));
    return original(input, init);
  };
  return seen;
}

const nextTick = () => new Promise((resolve) => setImmediate(resolve));

// The turn's hot path (onTurnStart + prefetchAll) does no request work after turn 1: building and
// sending the SDK request (about 1 ms of CPU) waits until the turn yields to the event loop.
describe('supermemory hot path', () => {
  it('recall started at turn start is sent once the turn yields, never inside prefetchAll; turn 1 waits for its own', async () => {
    const server = await fake();
    const hermesHome = home();
    const manager = new MemoryManager({ logger: silentLogger });
    manager.addProvider(
      new SupermemoryProvider({ apiKey: KEY, baseURL: server.url, apiTimeout: 2 }, { hermesHome, env: {} }),
    );
    await manager.initializeAll('hot-1', { hermesHome, platform: 'cli', logger: silentLogger, env: {} });
    await manager.handleToolCall('supermemory_store', { content: 'The user grows tomatoes in the garden.' });

    // Turn 1 waits for its own recall: one request, not two.
    await manager.onTurnStart(1, 'what grows in my garden?');
    expect(await manager.prefetchAll('what grows in my garden?')).toContain('tomatoes');
    await manager.flushPending(5000);
    await nextTick();
    expect(server.requestsTo('/v4/profile')).toHaveLength(1);

    const seen = watchFetch();
    await manager.onTurnStart(2, 'and what about the garden this spring?');
    await manager.prefetchAll('and what about the garden this spring?');
    expect(seen).toEqual([]);
    await nextTick();
    expect(seen).toEqual([`${server.url}/v4/profile`]);
    await manager.flushPending(5000);

    // Turn 3 serves what turn 2 prepared, without waiting.
    await manager.onTurnStart(3, 'anything else?');
    expect(await manager.prefetchAll('anything else?')).toContain('tomatoes');
    await manager.shutdownAll();
  });
});
