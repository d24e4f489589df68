/**
 * Honcho's circuit breaker (decision 0925; the reference has none for Honcho): every attempt the
 * SDK makes counts, five failures in a row open it, and while open sync, recall refreshes and
 * tools skip the network; after the cooldown one trial request decides. Driven through the real
 * SDK against the shipped fake with injected faults, on a ManualClock.
 */
import { ManualClock, TimeoutError } from '@hermes-memory/core';
import { collectLogs } from '@hermes-memory/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../src/config/values';
import type { HonchoProvider, HonchoProviderSettings } from '../src/index';
import { MessageWriter, type OutgoingMessage } from '../src/session/writer';
import { API_KEY, type Rig, startRig, WORKSPACE } from './harness';

let rig: Rig;
afterEach(async () => rig?.close());

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** Await `work`, moving the clock 1 s per round so backoffs and deadlines elapse. */
async function pumped<T>(clock: ManualClock, work: Promise<T>, rounds = 400): Promise<T> {
  let done = false;
  const settled = work.finally(() => {
    done = true;
  });
  for (let i = 0; i < rounds && !done; i++) {
    for (let j = 0; j < 5 && !done; j++) await tick();
    if (!done) await clock.advance(1_000);
  }
  expect(done).toBe(true);
  return settled;
}

/** A rig on a ManualClock with one provider whose session is set up, its log collected. */
async function openOnClock(config: JsonObject = {}, settings: HonchoProviderSettings = {}) {
  const clock = new ManualClock();
  rig = await startRig({ clock });
  const logs = collectLogs();
  const provider = rig.provider(config, settings);
  await rig.init(provider, 'session-1', { logger: logs.logger });
  await pumped(clock, provider.idle());
  return { clock, logs, provider };
}

/** What the conversation's session holds, oldest first. */
const stored = () => rig.fake.messages(WORKSPACE, 'demo').map((m) => m.content);
/** The messages `turn(n)` writes, for each n. */
const turnTexts = (...ns: number[]) => ns.flatMap((n) => [`user turn ${n}`, `assistant reply ${n}`]);

/** One whole turn the way the manager drives it. */
async function turn(provider: HonchoProvider, n: number, clock: ManualClock): Promise<string> {
  provider.onTurnStart(n, `question ${n}`);
  const recalled = await pumped(clock, provider.prefetch(`what did we say about topic ${n}?`));
  await pumped(clock, provider.syncTurn(`user turn ${n}`, `assistant reply ${n}`));
  provider.queuePrefetch(`what did we say about topic ${n}?`);
  return recalled;
}

/**
 * Open the breaker with 500s, let its 60 s cooldown pass, and send a search that reaches the hung
 * service as the half-open trial; then abort that search's signal with `reason`. `sent` counts the
 * requests the fake got, the trial included.
 */
async function trialCutShort(reason: unknown) {
  const { clock, provider } = await openOnClock({ writeFrequency: 'turn' }, { breakerCooldownMs: 60_000 });
  rig.fake.fail({ type: 'status', status: 500, count: 100_000 });
  await pumped(clock, provider.handleToolCall('honcho_search', { query: 'a' }));
  expect(provider.health()?.status).toBe('down');

  await clock.advance(60_000);
  rig.fake.clearFaults();
  rig.fake.fail({ type: 'timeout', count: 1 });
  const before = rig.fake.requests.length;
  const caller = new AbortController();
  const trial = provider.handleToolCall('honcho_search', { query: 'b' }, { signal: caller.signal });
  for (let i = 0; i < 200 && rig.fake.requests.length === before; i++) await tick();
  expect(rig.fake.requests.length).toBe(before + 1); // the trial reached the (hung) service
  caller.abort(reason);
  expect(JSON.parse(await pumped(clock, trial)).error).toBeDefined();
  return { clock, provider, sent: rig.fake.requests.length };
}

describe('honcho circuit breaker', () => {
  it('a backend answering 503 opens it after 5 failed requests: turns, refreshes and tools stop calling, health is down, tools answer JSON', async () => {
    const { clock, logs, provider } = await openOnClock({ writeFrequency: 'turn' });
    rig.fake.fail({ type: 'status', status: 503, retryAfter: 1, count: 100_000 });

    // A search is two requests of up to three attempts each: the breaker opens during the second.
    const first = JSON.parse(await pumped(clock, provider.handleToolCall('honcho_search', { query: 'a' })));
    expect(first.error).toMatch(/unavailable after 5 consecutive failed requests; retry after \d+ s/);
    expect(rig.fake.requests.filter((r) => r.status === 503)).toHaveLength(5);
    const health = provider.health();
    expect(health?.status).toBe('down');
    expect(health?.reason).toMatch(/^circuit breaker open: Honcho is unavailable .* retry after \d+ s\.$/);
    expect(health?.consecutiveFailures).toBe(5);
    expect(logs.messages().join('\n')).toMatch(
      /5 consecutive requests failed; pausing Honcho calls for 120 s/,
    );

    // While open: no request at all, whatever the agent does, and every tool answers JSON at once.
    const before = rig.fake.requests.length;
    for (let n = 1; n <= 6; n++) expect(await turn(provider, n, clock)).toBe('');
    for (const tool of [
      'honcho_profile',
      'honcho_search',
      'honcho_reasoning',
      'honcho_context',
      'honcho_conclude',
    ]) {
      // Well-formed arguments for each (malformed ones get their argument error first).
      const args = tool === 'honcho_conclude' ? { conclusion: 'likes tea' } : { query: 'x' };
      const out = JSON.parse(await provider.handleToolCall(tool, args));
      expect(out.error).toMatch(
        /^Honcho is unavailable after 5 consecutive failed requests; retry after \d+ s\.$/,
      );
    }
    await pumped(clock, provider.idle());
    expect(rig.fake.requests.length).toBe(before);
    expect(JSON.stringify(health) + logs.messages().join('\n')).not.toContain(API_KEY);
  });

  it('after the cooldown one trial request closes it again: held turns are sent first, in order, and health recovers', async () => {
    const { clock, provider } = await openOnClock({ writeFrequency: 'turn' }, { breakerCooldownMs: 60_000 });
    rig.fake.fail({ type: 'status', status: 500, count: 100_000 });
    await pumped(clock, provider.handleToolCall('honcho_search', { query: 'a' }));
    await pumped(clock, provider.handleToolCall('honcho_search', { query: 'b' }));
    expect(provider.health()?.status).toBe('down');
    await turn(provider, 1, clock);
    await turn(provider, 2, clock);
    expect(stored()).toEqual([]);
    // The connection test is not refused by the breaker (it is how a user checks the service).
    expect((await pumped(clock, provider.probe())).status).toBe('failed');

    rig.fake.clearFaults();
    const sent = rig.fake.requests.length;
    await clock.advance(30_000);
    await turn(provider, 3, clock); // still open: held
    expect(rig.fake.requests.length).toBe(sent + 0);
    await clock.advance(60_000);
    await turn(provider, 4, clock); // half-open: the trial goes out, succeeds, the held turns follow
    await pumped(clock, provider.idle());
    expect(provider.health()?.status).toBe('ok');
    expect(stored()).toEqual(turnTexts(1, 2, 3, 4));
    const out = JSON.parse(await pumped(clock, provider.handleToolCall('honcho_search', { query: 'turn' })));
    expect(out.error).toBeUndefined();
  });

  it('a hung backend: each attempt times out on the injected clock and counts; a failed trial reopens for another cooldown', async () => {
    // request timeout 5 s
    const { clock, provider } = await openOnClock({ writeFrequency: 'async' }, { breakerCooldownMs: 60_000 });
    rig.fake.fail({ type: 'timeout', count: 100_000 });
    const first = JSON.parse(await pumped(clock, provider.handleToolCall('honcho_search', { query: 'a' })));
    expect(first.error).toMatch(/unavailable after 5 consecutive failed requests/);
    expect(provider.health()?.status).toBe('down');
    const hungRequests = rig.fake.requests.length;
    await turn(provider, 1, clock);
    expect(rig.fake.requests.length).toBe(hungRequests);

    await clock.advance(60_000);
    // The trial (the turn's write) hangs and times out: open again, for another full cooldown.
    await turn(provider, 2, clock);
    await pumped(clock, provider.idle());
    expect(rig.fake.requests.length).toBe(hungRequests + 1);
    expect(provider.health()?.status).toBe('down');
    expect(provider.health()?.reason).toMatch(/retry after (5\d|60) s/);

    rig.fake.clearFaults();
    await clock.advance(60_000);
    await turn(provider, 3, clock);
    await pumped(clock, provider.idle());
    expect(provider.health()?.status).toBe('ok');
    // Nothing the async writer held was dropped: every turn reached Honcho, in order.
    expect(stored()).toEqual(turnTexts(1, 2, 3));
  });

  it('a half-open trial its own caller aborted decides nothing: the breaker stays open, the next request is the trial and a failing one reopens it', async () => {
    const { clock, provider } = await trialCutShort(new Error('the user pressed stop'));

    // No verdict yet: the next request is the trial again, it fails, and only it went out.
    rig.fake.fail({ type: 'status', status: 500, count: 100_000 });
    const before = rig.fake.requests.length;
    const failed = JSON.parse(await pumped(clock, provider.handleToolCall('honcho_search', { query: 'c' })));
    expect(failed.error).toBeDefined();
    expect(rig.fake.requests.length).toBe(before + 1);
    expect(provider.health()?.status).toBe('down');
    const refused = JSON.parse(await provider.handleToolCall('honcho_search', { query: 'd' }));
    expect(refused.error).toMatch(
      // The five that opened it and the failed trial: the aborted one counted nothing.
      /^Honcho is unavailable after 6 consecutive failed requests; retry after (59|60) s\.$/,
    );
    expect(rig.fake.requests.length).toBe(before + 1);
  });

  it('a half-open trial cut short by its deadline counts: the service did not answer in time, so the breaker re-opens for a full cooldown', async () => {
    // The manager's budget runs out (core's deadlines abort with a TimeoutError).
    const { provider, sent } = await trialCutShort(
      new TimeoutError("handleToolCall 'honcho' timed out after 2000 ms", 2000),
    );

    // Counted: open again, nothing goes out, and the wait is a full cooldown from now.
    const refused = JSON.parse(await provider.handleToolCall('honcho_search', { query: 'c' }));
    expect(refused.error).toMatch(
      /^Honcho is unavailable after 6 consecutive failed requests; retry after 60 s\.$/,
    );
    expect(rig.fake.requests.length).toBe(sent);
    expect(provider.health()?.status).toBe('down');
  });

  it('turns held while open are capped: the oldest go past the cap, one warning per outage, the count in health', async () => {
    // 4 messages (2 turns) or 60 characters, whichever is reached first.
    const { clock, logs, provider } = await openOnClock(
      { writeFrequency: 'turn' },
      { breakerCooldownMs: 60_000, heldLimits: { messages: 4, chars: 60 } },
    );
    rig.fake.fail({ type: 'status', status: 500, count: 100_000 });
    await pumped(clock, provider.handleToolCall('honcho_search', { query: 'a' }));
    await pumped(clock, provider.handleToolCall('honcho_search', { query: 'b' }));
    expect(provider.health()?.status).toBe('down');
    for (let n = 1; n <= 5; n++) await turn(provider, n, clock);
    // 10 messages held, 4 kept: 6 dropped, one warning.
    const capWarnings = () => logs.messages().filter((m) => m.includes('held turns exceed'));
    expect(capWarnings()).toHaveLength(1);
    expect(capWarnings()[0]).toMatch(/exceed 4 messages or 60 characters; dropping the oldest \(2 message/);
    // What is held on disk is capped the same way: the 4 newest.
    expect(provider.health()?.reason).toMatch(
      / 6 held message\(s\) dropped \(the oldest, over the cap\)\. 4 message\(s\) wait on disk for delivery\.$/,
    );
    // The character limit binds too: one long turn pushes out all but itself.
    const long = 'x'.repeat(40);
    await pumped(clock, provider.syncTurn(long, 'ok'));
    expect(provider.health()?.reason).toMatch(/ 9 held message\(s\) dropped/);
    expect(capWarnings()).toHaveLength(1);

    rig.fake.clearFaults();
    await clock.advance(60_000);
    await turn(provider, 6, clock);
    await pumped(clock, provider.idle());
    expect(provider.health()?.status).toBe('ok');
    // The newest held turns, in order, then the turn that closed the breaker.
    expect(stored()).toEqual(['assistant reply 5', long, 'ok', 'user turn 6', 'assistant reply 6']);
    expect(logs.messages().join('\n')).toMatch(
      /reachable again; 9 held message\(s\) were dropped during the outage/,
    );

    // A second outage warns again.
    rig.fake.fail({ type: 'status', status: 500, count: 100_000 });
    await pumped(clock, provider.handleToolCall('honcho_search', { query: 'c' }));
    await pumped(clock, provider.handleToolCall('honcho_search', { query: 'd' }));
    for (let n = 7; n <= 9; n++) await turn(provider, n, clock);
    expect(capWarnings()).toHaveLength(2);
  });

  it('while open, malformed arguments get their argument error (no request), well-formed ones the breaker error', async () => {
    const { clock, provider } = await openOnClock({ writeFrequency: 'turn' }, { breakerCooldownMs: 60_000 });
    rig.fake.fail({ type: 'status', status: 500, count: 100_000 });
    await pumped(clock, provider.handleToolCall('honcho_search', { query: 'a' }));
    await pumped(clock, provider.handleToolCall('honcho_search', { query: 'b' }));
    expect(provider.health()?.status).toBe('down');
    const before = rig.fake.requests.length;
    const missing = JSON.parse(await provider.handleToolCall('honcho_search', {}));
    expect(missing.error).toMatch(/query/);
    expect(missing.error).not.toMatch(/unavailable/);
    const notJson = JSON.parse(await provider.handleToolCall('honcho_search', '{"query": '));
    expect(notJson.error).not.toMatch(/unavailable/);
    const badPeer = JSON.parse(await provider.handleToolCall('honcho_profile', { peer: '../x' }));
    expect(badPeer.error).toMatch(/Invalid peer/);
    const wellFormed = JSON.parse(await provider.handleToolCall('honcho_search', { query: 'c' }));
    expect(wellFormed.error).toMatch(/^Honcho is unavailable after 5 consecutive failed requests/);
    expect(rig.fake.requests.length).toBe(before);
  });

  it('after shutdown, tools say Honcho was shut down, not that it is not configured', async () => {
    const { clock, provider } = await openOnClock();
    await pumped(clock, provider.shutdown({ timeoutMs: 1_000 }));
    const out = JSON.parse(await provider.handleToolCall('honcho_search', { query: 'x' }));
    expect(out.error).toMatch(/shut down/);
    expect(out.error).not.toMatch(/not configured/);
  });

  it('client errors are answers, not failures, and a success resets the count', async () => {
    const { clock, provider } = await openOnClock();
    rig.fake.fail({ type: 'status', status: 422, count: 20 });
    for (let i = 0; i < 8; i++)
      await pumped(clock, provider.handleToolCall('honcho_search', { query: `q${i}` }));
    rig.fake.clearFaults();
    expect(provider.health()?.status).not.toBe('down');
    // 4 failed attempts, a success, 4 more: never 5 in a row.
    for (let round = 0; round < 2; round++) {
      rig.fake.fail({ type: 'status', status: 500, count: 4 });
      await pumped(clock, provider.handleToolCall('honcho_search', { query: 'x' })); // 3 attempts fail
      await pumped(clock, provider.handleToolCall('honcho_search', { query: 'y' })); // 1 fails, the retry answers
      expect(provider.health()?.status).not.toBe('down');
    }
    const out = JSON.parse(await pumped(clock, provider.handleToolCall('honcho_search', { query: 'z' })));
    expect(out.error).toBeUndefined();
  });

  it('the held-turn cap keeps a running total of characters: messages a failed flush put back count, a sent batch no longer does', async () => {
    let failing = true;
    const sent: string[] = [];
    const writer = new MessageWriter({
      frequency: 'turn',
      ready: async () => undefined,
      send: async (_session, messages) => {
        if (failing) throw new Error('Honcho is down');
        sent.push(...messages.map((m) => m.content));
      },
      heldLimits: { messages: 3, chars: 10 },
    });
    const message = (content: string): OutgoingMessage => ({ sessionId: 's', peerId: 'alice', content });
    await expect(writer.save([message('aaaa')])).rejects.toThrow('Honcho is down');
    writer.hold([message('bbbb')]);
    writer.hold([message('cc')]); // 3 messages, 10 characters: at the cap, nothing dropped
    expect(writer.heldDropped).toBe(0);
    writer.hold([message('d')]); // 4 messages: the oldest (put back by the failed flush) goes
    expect(writer.heldDropped).toBe(1);
    writer.hold([message('eeeeeeee')]); // 15 characters: bbbb and cc go
    expect(writer.heldDropped).toBe(3);
    failing = false;
    await writer.flushAll();
    expect(sent).toEqual(['d', 'eeeeeeee']);
    writer.hold([message('123456789')]); // the sent batch left the total: 9 characters fit
    expect(writer.heldDropped).toBe(3);
    expect(writer.pending).toBe(1);
    await writer.close();
  });
});
