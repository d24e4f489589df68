import { MemoryManager, silentLogger } from '@hermes-memory/core';
import { afterEach, describe, expect, it } from 'vitest';
import { HindsightProvider } from '../src';
import { fake, home, KEY } from './helpers';

const original = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = original;
});

/** Every URL path the SDK fetches from now on (it resolves the global per call). */
function watchFetch(): string[] {
  const seen: string[] = [];
  globalThis.fetch = (input, init) => {
    seen.push(new URL(input instanceof Request ? input.url : String(input)).pathname);
    return original(input, init);
  };
  return seen;
}

const RECALL_PATH = '/v1/default/banks/hermes/memories/recall';

async function managerWith(url: string, id: string): Promise<MemoryManager> {
  const hermesHome = home();
  const manager = new MemoryManager({ logger: silentLogger });
  manager.addProvider(
    new HindsightProvider(
      { apiKey: KEY, apiURL: url, timeout: 2, recallTypes: ['world'] },
      { hermesHome, env: { HOME: hermesHome } },
    ),
  );
  await manager.initializeAll(id, {
    hermesHome,
    platform: 'cli',
    logger: silentLogger,
    env: { HOME: hermesHome },
  });
  return manager;
}

/** A host's turn that never calls queuePrefetchAll: turn start, recall (its text returned), sync, settle, yield. */
async function turn(manager: MemoryManager, n: number, query: string, seen?: string[]): Promise<string> {
  await manager.onTurnStart(n, query);
  const before = seen?.length ?? 0;
  const block = await manager.prefetchAll(query);
  // Nothing of a request is built or sent while the turn's recall is served.
  if (seen) expect(seen.slice(before)).toEqual([]);
  manager.syncAll(`user ${n}: ${query}`, 'noted.');
  await manager.flushPending(5000);
  await new Promise((resolve) => setImmediate(resolve));
  return block;
}

// The turn's hot path after turn 1 (onTurnStart + prefetchAll) serves a string the background
// formatted when the answer arrived: no request work (the SDK's request assembly and fetch, about
// 1 ms of CPU) inside prefetchAll. Before, a turn with nothing buffered started its recall there,
// and a host that never calls queuePrefetch got recall only every other turn.
describe('hindsight hot path', () => {
  it('after turn 1, prefetchAll sends nothing; recall starts once the turn yields and every later turn gets one', async () => {
    const server = await fake();
    const manager = await managerWith(server.url, 'hot-1');
    await manager.handleToolCall('hindsight_retain', { content: 'The lighthouse keeper is called Ada.' });
    await manager.flushPending(5000);

    // Turn 1 waits (bounded) for its own recall.
    expect(await turn(manager, 1, 'who keeps the lighthouse')).toMatch(/Ada/);

    const seen = watchFetch();
    const blocks: string[] = [];
    for (let n = 2; n <= 7; n++)
      blocks.push(await turn(manager, n, `the lighthouse keeper, question ${n}`, seen));
    // Turn 2's query was recalled after turn 2 yielded, and so on: from turn 3, every turn.
    expect(blocks.slice(1).every((b) => b.includes('Ada'))).toBe(true);
    expect(seen.filter((p) => p === RECALL_PATH).length).toBeGreaterThanOrEqual(5);
    await manager.shutdownAll();
  });

  it('a host that calls queuePrefetchAll keeps its read-after-write recall: prefetch starts none of its own', async () => {
    const server = await fake();
    const manager = await managerWith(server.url, 'hot-2');
    await turn(manager, 1, 'what is the boat called');
    manager.queuePrefetchAll('what is the boat called');
    await manager.flushPending(5000);
    const seen = watchFetch();
    for (let n = 2; n <= 4; n++) {
      await manager.onTurnStart(n, 'the boat');
      await manager.prefetchAll('the boat');
      manager.syncAll(`The boat is named Kestrel ${n}.`, 'A fine name.');
      manager.queuePrefetchAll('the boat');
      await manager.flushPending(5000);
      await new Promise((resolve) => setImmediate(resolve));
    }
    // One recall a turn, the host's, sent after that turn's retain.
    const paths = seen.filter((p) => p === RECALL_PATH || p.endsWith('/memories'));
    expect(paths).toEqual(
      Array.from({ length: 3 }, () => ['/v1/default/banks/hermes/memories', RECALL_PATH]).flat(),
    );
    await manager.onTurnStart(5, 'the boat');
    expect(await manager.prefetchAll('the boat')).toMatch(/Kestrel 4/);
    await manager.shutdownAll();
  });
});
