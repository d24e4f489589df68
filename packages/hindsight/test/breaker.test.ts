/**
 * Hindsight's circuit breaker (decision 0953; the reference has none): every attempt the SDK makes
 * counts, five failures in a row open it, and while open recall, retains and tools skip the
 * network; turns are held and delivered, in order, once one trial request after the cooldown
 * succeeds. Driven through the official SDK against the shipped fake, on a ManualClock.
 */
import { ManualClock, TimeoutError } from '@hermes-memory/core';
import { describe, expect, it } from 'vitest';
import { fake, json, KEY, openBreaker, pumped, retainedTurns, started } from './helpers';

const RECALL = 'POST /v1/default/banks/:bank/memories/recall';
const UNAVAILABLE = /^Hindsight is unavailable after 5 consecutive failed requests; retry after \d+ s\.$/;

const tick = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Open the breaker, let its 60 s cooldown pass, and send a recall that reaches the hung service as
 * the half-open trial; then abort that call's signal with `reason`.
 */
async function trialCutShort(sessionId: string, reason: unknown) {
  const server = await fake();
  const clock = new ManualClock(0);
  const { provider } = await started(server, { clock, breakerCooldownMs: 60_000 }, { sessionId });
  await openBreaker(server, provider, clock);
  server.clearFaults();
  server.fail({ type: 'timeout', count: 1, route: RECALL });
  await clock.advance(60_000);
  const caller = new AbortController();
  const call = provider.handleToolCall('hindsight_recall', { query: 'x' }, { signal: caller.signal });
  while (server.hanging === 0) await tick();
  caller.abort(reason);
  await call;
  return { server, clock, provider };
}

describe('hindsight circuit breaker', () => {
  it('opens after 5 failed requests: tools answer JSON at once, prefetch serves the cache, nothing goes out, health is down', async () => {
    const server = await fake();
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
    const { provider, logs } = await started(server, { clock, recallTypes: ['world'] }, { sessionId: 'b-1' });
    await pumped(clock, () =>
      provider.handleToolCall('hindsight_retain', { content: 'The user drinks green tea.' }),
    );
    provider.queuePrefetch('what does the user drink?');
    await pumped(clock, () => provider.idle());

    server.fail({ type: 'status', status: 500, count: 100_000 });
    // A recall is up to three attempts: the breaker opens on the fifth, the sixth is refused unsent.
    const first = json(
      await pumped(clock, () => provider.handleToolCall('hindsight_recall', { query: 'a' })),
    );
    expect(first.error).toMatch(/HTTP 500/);
    const second = json(
      await pumped(clock, () => provider.handleToolCall('hindsight_recall', { query: 'b' })),
    );
    expect(second.error).toMatch(/Hindsight is unavailable after 5 consecutive failed requests/);
    expect(server.requests.filter((r) => r.status === 500)).toHaveLength(5);
    const health = provider.health();
    expect(health?.status).toBe('down');
    expect(health?.reason).toMatch(/^circuit breaker open: Hindsight is unavailable .* retry after 120 s\.$/);
    expect(health?.consecutiveFailures).toBe(5);
    expect(logs.contains('5 consecutive requests failed; pausing Hindsight calls for 120 s')).toBe(true);

    // While open: the prepared recall is served, and nothing the agent does sends a request.
    const before = server.requests.length;
    provider.onTurnStart(1, 'what does the user drink?');
    expect(await provider.prefetch('what does the user drink?')).toContain('green tea');
    for (let n = 2; n <= 4; n++) {
      provider.onTurnStart(n, `question ${n}`);
      expect(await provider.prefetch(`question ${n}`)).toBe('');
      provider.syncTurn(`user turn ${n}`, `reply ${n}`);
      provider.queuePrefetch(`question ${n}`);
    }
    for (const tool of ['hindsight_retain', 'hindsight_recall', 'hindsight_reflect']) {
      const out = json(await provider.handleToolCall(tool, { query: 'x', content: 'y' }));
      expect(out.error).toMatch(UNAVAILABLE);
    }
    await pumped(clock, () => provider.idle());
    expect(server.requests.length).toBe(before);
    // Held in memory and journaled on disk for the next start (decision 0115).
    expect(provider.health()?.reason).toMatch(/ 3 turn\(s\) held for delivery\. 3 turn\(s\) wait on disk\.$/);
    expect(JSON.stringify(provider.health()) + logs.messages().join('\n')).not.toContain(KEY);
  });

  it('an answered 4xx does not count, nor do attempts our own caller aborted', async () => {
    const server = await fake();
    const clock = new ManualClock(0);
    const { provider } = await started(server, { clock }, { sessionId: 'b-2' });
    server.fail({ type: 'status', status: 400, count: 100, route: RECALL });
    for (let i = 0; i < 7; i++) {
      const out = json(
        await pumped(clock, () => provider.handleToolCall('hindsight_recall', { query: `q${i}` })),
      );
      expect(out.error).toMatch(/HTTP 400/);
    }
    expect(server.requestsTo(RECALL)).toHaveLength(7);
    expect(provider.health()?.status).not.toBe('down');

    server.clearFaults();
    server.fail({ type: 'timeout', count: 100, route: RECALL });
    for (let i = 0; i < 6; i++) {
      const stop = new AbortController();
      const call = provider.handleToolCall(
        'hindsight_recall',
        { query: `hung ${i}` },
        { signal: stop.signal },
      );
      while (server.hanging === 0) await tick();
      stop.abort(new Error('turn over'));
      expect(typeof json(await call).error).toBe('string');
      while (server.hanging > 0) await tick();
    }
    server.clearFaults();
    const out = json(
      await pumped(clock, () => provider.handleToolCall('hindsight_recall', { query: 'after' })),
    );
    expect(out.error).toBeUndefined();
    expect(server.requestsTo(RECALL)).toHaveLength(7 + 6 + 1);
  });

  it('after the cooldown one trial closes it: held turns, an earlier session’s first, reach their documents in order', async () => {
    const server = await fake();
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
    const { provider, logs } = await started(
      server,
      { clock, breakerCooldownMs: 60_000 },
      { sessionId: 's-1' },
    );
    provider.syncTurn('user turn 1', 'reply 1');
    await pumped(clock, () => provider.idle());
    await openBreaker(server, provider, clock);
    const before = server.requests.length;
    provider.syncTurn('user turn 2', 'reply 2');
    provider.syncTurn('user turn 3', 'reply 3');
    provider.onSessionSwitch('s-2');
    provider.syncTurn('user turn 4', 'reply 4');
    await pumped(clock, () => provider.idle());
    expect(server.requests.length).toBe(before);
    expect(provider.health()?.reason).toMatch(/3 turn\(s\) held for delivery/);

    server.clearFaults();
    await clock.advance(30_000);
    provider.syncTurn('user turn 5', 'reply 5'); // still open: held
    await pumped(clock, () => provider.idle());
    expect(server.requests.length).toBe(before);
    await clock.advance(30_000);
    provider.syncTurn('user turn 6', 'reply 6'); // half-open: the trial goes out, the rest follows
    await pumped(clock, () => provider.idle());
    expect(provider.health()?.status).toBe('ok');
    expect(retainedTurns(server)).toEqual([
      ['s-1', ['User: user turn 1']],
      ['s-1', ['User: user turn 2', 'User: user turn 3']],
      ['s-2', ['User: user turn 4', 'User: user turn 5', 'User: user turn 6']],
    ]);
    expect(logs.contains('Hindsight: reachable again; calls resumed.')).toBe(true);
    expect(logs.contains('Hindsight retain failed')).toBe(false);
  });

  it('held turns go out as soon as a trial of any kind closes it, without waiting for the next turn', async () => {
    const server = await fake();
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
    const { provider } = await started(server, { clock, breakerCooldownMs: 60_000 }, { sessionId: 's-3' });
    await openBreaker(server, provider, clock);
    provider.syncTurn('user turn 1', 'reply 1');
    provider.onSessionSwitch('s-4');
    provider.syncTurn('user turn 2', 'reply 2');
    server.clearFaults();
    await clock.advance(60_000);
    // The trial is a tool's recall; its success closes the breaker and the held retains follow.
    expect(
      json(await pumped(clock, () => provider.handleToolCall('hindsight_recall', { query: 'x' }))).error,
    ).toBe(undefined);
    await pumped(clock, () => provider.idle());
    expect(retainedTurns(server)).toEqual([
      ['s-3', ['User: user turn 1']],
      ['s-4', ['User: user turn 2']],
    ]);
  });

  it('a hung service: each attempt times out on the injected clock and counts; a failed trial reopens it for a full cooldown', async () => {
    const server = await fake();
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
    const { provider } = await started(server, { clock, breakerCooldownMs: 60_000 }, { sessionId: 'h-1' });
    server.fail({ type: 'timeout', count: 100_000 });
    await pumped(clock, () => provider.handleToolCall('hindsight_recall', { query: 'a' }));
    const out = json(await pumped(clock, () => provider.handleToolCall('hindsight_recall', { query: 'b' })));
    expect(out.error).toMatch(/unavailable after 5 consecutive failed requests/);
    const hung = server.requests.length;
    expect(hung).toBe(5);

    await clock.advance(60_000);
    provider.syncTurn('user turn 1', 'reply 1'); // the trial: it hangs, times out, reopens
    await pumped(clock, () => provider.idle());
    expect(server.requests.length).toBe(hung + 1);
    expect(provider.health()?.status).toBe('down');
    expect(provider.health()?.reason).toMatch(/retry after (5\d|60) s/);

    server.clearFaults();
    await clock.advance(60_000);
    provider.syncTurn('user turn 2', 'reply 2');
    await pumped(clock, () => provider.idle());
    expect(provider.health()?.status).toBe('ok');
    expect(retainedTurns(server)).toEqual([['h-1', ['User: user turn 1', 'User: user turn 2']]]);
  });

  it('a trial its own caller aborted decides nothing: the next request is the trial', async () => {
    const { server, clock, provider } = await trialCutShort('t-1', new Error('turn over'));
    // The next request is the trial: its 500 reopens it at once and its retry is refused. Had the
    // aborted trial closed it, three failed attempts would count 3 of 5 and leave it closed.
    server.fail({ type: 'status', status: 500, count: 100 });
    const out = json(await pumped(clock, () => provider.handleToolCall('hindsight_recall', { query: 'y' })));
    expect(out.error).toMatch(/Hindsight is unavailable after 6 consecutive failed requests/);
    expect(server.requests.filter((r) => r.status === 500)).toHaveLength(5 + 1);
    expect(provider.health()?.status).toBe('down');
  });

  it('a trial cut short by its deadline counts: the service did not answer in time, so it reopens for a full cooldown', async () => {
    // The manager's budget runs out (core's deadlines abort with a TimeoutError).
    const { server, provider } = await trialCutShort(
      't-2',
      new TimeoutError("handleToolCall 'hindsight' timed out after 2000 ms", 2000),
    );
    const sent = server.requests.length;
    // Counted: open again for a full cooldown, and the next request is refused unsent.
    const out = json(await provider.handleToolCall('hindsight_recall', { query: 'y' }));
    expect(out.error).toMatch(
      /^Hindsight is unavailable after 6 consecutive failed requests; retry after 60 s\.$/,
    );
    expect(server.requests.length).toBe(sent);
    expect(provider.health()?.status).toBe('down');
  });

  it('what an outage holds is capped: the oldest turns go, one warning, the count in health() and after recovery', async () => {
    const server = await fake();
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
    const { provider, logs } = await started(
      server,
      { clock, breakerCooldownMs: 60_000, heldLimits: { turns: 2, chars: 1_000_000 } },
      { sessionId: 'c-1' },
    );
    await openBreaker(server, provider, clock);
    for (let n = 1; n <= 5; n++) provider.syncTurn(`user turn ${n}`, `reply ${n}`);
    const warnings = logs.messages().filter((m) => m.includes('dropping the oldest'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /exceed 2 turns or 1000000 characters; dropping the oldest \(1 turn\(s\) so far/,
    );
    // The cap binds on disk too: the dropped turns leave the outbox (decision 0115).
    expect(provider.health()?.reason).toMatch(
      / 2 turn\(s\) held for delivery\. 3 held turn\(s\) dropped \(the oldest, over the cap\)\. 2 turn\(s\) wait on disk\.$/,
    );
    expect(provider.turnsOnDisk).toBe(2);

    server.clearFaults();
    await clock.advance(60_000);
    provider.syncTurn('user turn 6', 'reply 6');
    await pumped(clock, () => provider.idle());
    expect(retainedTurns(server)).toEqual([
      ['c-1', ['User: user turn 4', 'User: user turn 5', 'User: user turn 6']],
    ]);
    expect(logs.contains('3 held turn(s) were dropped during the outage')).toBe(true);
  });

  it('the connection test bypasses it and is not counted', async () => {
    const server = await fake();
    const clock = new ManualClock(0);
    const { provider } = await started(server, { clock }, { sessionId: 'p-1' });
    await openBreaker(server, provider, clock);
    server.clearFaults();
    const before = server.requests.length;
    const probe = await pumped(clock, () => provider.probe());
    expect(probe.status).toBe('ok');
    expect(server.requests.length).toBe(before + 2);
    // Still open: the probe neither closed it nor counted.
    expect(provider.health()?.status).toBe('down');
    expect(json(await provider.handleToolCall('hindsight_recall', { query: 'x' })).error).toMatch(
      UNAVAILABLE,
    );
  });
});
