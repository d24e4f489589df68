/**
 * OpenViking's circuit breaker (decision 0982; the reference has none): every attempt on the wire
 * counts, five failures in a row open it, and while open recall, session writes, commits and
 * tools skip the network; held turns reach their own sessions in order once one trial request
 * after the cooldown succeeds, and only then are the sessions that waited committed. Driven over
 * the real wire protocol against the shipped fake, on a ManualClock.
 */
import fs from 'node:fs';
import { type ManualClock, TimeoutError } from '@hermes-memory/core';
import { describe, expect, it } from 'vitest';
import { markerFile } from './sessions/markers';
import { advanceUntil, type Rig, rigPerTest } from './test-support/rig';
import { writeFile } from './testing/viking-tree';
import { TOOL_NAMES } from './tools';

const open = rigPerTest();
const tick = () => new Promise((resolve) => setImmediate(resolve));

const UNAVAILABLE = /^OpenViking is unavailable after 5 consecutive failed requests; retry after \d+ s\.$/;
const BATCH = 'POST /api/v1/sessions/:sid/messages/batch';
const COMMIT = 'POST /api/v1/sessions/:sid/commit';

/** Await `work` while the clock fires what falls due (retry backoffs, deadlines) without sleeping. */
async function settled<T>(r: Rig, work: Promise<T>): Promise<T> {
  let done = false;
  const running = work.finally(() => {
    done = true;
  });
  await advanceUntil(r.clock as ManualClock, () => done, { stepMs: 1_000 });
  return running;
}

async function idle(r: Rig): Promise<void> {
  await settled(r, r.provider.idle());
}

function json(text: string): Record<string, unknown> {
  return JSON.parse(text) as Record<string, unknown>;
}

/** Every request fails with a 500; three searches (two attempts each) open the breaker. */
async function openBreaker(r: Rig): Promise<void> {
  r.backend.fail({ type: 'status', status: 500, count: 100_000 });
  for (const query of ['first question', 'second question', 'third question'])
    await settled(r, r.provider.handleToolCall(TOOL_NAMES.search, { query }));
  expect(r.provider.health()?.status).toBe('down');
}

/** The text of each message the server accepted, per session, in the order they arrived. */
function accepted(r: Rig): Array<[string, string[]]> {
  return r.backend
    .requestsTo(BATCH)
    .filter((q) => q.status === 200)
    .map((q) => [
      q.params.sid!,
      (q.body as { messages: Array<{ parts: Array<{ text?: string }> }> }).messages.map(
        (m) => m.parts[0]?.text ?? '',
      ),
    ]);
}

describe('openviking circuit breaker', () => {
  it('opens after 5 failed requests: tools answer JSON at once, prefetch serves what is ready, nothing goes out, health is down', async () => {
    const r = await open();
    writeFile(
      r.backend.state,
      'viking://user/default/memories/events/mem_000000000001.md',
      'Ana moved to Porto.',
    );
    r.provider.onTurnStart(1, 'where does Ana live?');
    expect(await settled(r, r.provider.prefetch('where does Ana live?'))).toContain('Porto');
    r.provider.queuePrefetch('tell me about Porto');
    await idle(r);

    r.backend.fail({ type: 'status', status: 500, count: 100_000 });
    const answers: Record<string, unknown>[] = [];
    for (const query of ['first question', 'second question', 'third question'])
      answers.push(json(await settled(r, r.provider.handleToolCall(TOOL_NAMES.search, { query }))));
    // Two attempts per search: the fifth opens it, the sixth is refused unsent.
    expect(answers[2]!.error).toMatch(/OpenViking is unavailable after 5 consecutive failed requests/);
    expect(r.backend.requests.filter((q) => q.status === 500)).toHaveLength(5);
    const health = r.provider.health();
    expect(health?.status).toBe('down');
    expect(health?.reason).toMatch(
      /^circuit breaker open: OpenViking is unavailable .* retry after 120 s\.$/,
    );
    expect(health?.consecutiveFailures).toBe(5);
    expect(
      r.logs.contains('OpenViking: 5 consecutive requests failed; pausing OpenViking calls for 120 s.'),
    ).toBe(true);

    const before = r.backend.requests.length;
    r.provider.onTurnStart(2, 'tell me about Porto');
    expect(await r.provider.prefetch('tell me about Porto')).toContain('Porto');
    for (let n = 3; n <= 5; n++) {
      r.provider.onTurnStart(n, `question number ${n}`);
      expect(await r.provider.prefetch(`question number ${n}`)).toBe('');
      r.provider.syncTurn(`user turn ${n}`, `reply ${n}`);
      r.provider.queuePrefetch(`question number ${n}`);
    }
    for (const tool of Object.values(TOOL_NAMES)) {
      const out = json(
        await r.provider.handleToolCall(tool, { query: 'x', uri: 'viking://user', content: 'y' }),
      );
      expect(out.error, tool).toMatch(UNAVAILABLE);
    }
    await settled(r, r.provider.onSessionEnd([]));
    await idle(r);
    expect(r.backend.requests.length).toBe(before);
    expect(r.provider.health()?.reason).toMatch(/ 6 message\(s\) held for delivery\.$/);
  });

  it('an answered 4xx does not count (the server is up)', async () => {
    const r = await open();
    r.backend.fail({ type: 'status', status: 404, count: 100 });
    for (let i = 0; i < 7; i++)
      await settled(
        r,
        r.provider.handleToolCall(TOOL_NAMES.read, { uri: `viking://user/default/memories/x${i}.md` }),
      );
    expect(r.backend.requests.filter((q) => q.status === 404).length).toBeGreaterThanOrEqual(7);
    expect(r.provider.health()?.status).not.toBe('down');
    r.backend.clearFaults();
    expect(
      json(await settled(r, r.provider.handleToolCall(TOOL_NAMES.search, { query: 'after' }))).error,
    ).toBe(undefined);
  });

  it('after the cooldown one trial closes it: held turns reach their own sessions in order, then the session that waited is committed', async () => {
    const r = await open({ provider: { breakerCooldownMs: 60_000 } });
    const clock = r.clock as ManualClock;
    r.provider.syncTurn('user turn one', 'reply one');
    await idle(r);
    await openBreaker(r);
    const before = r.backend.requests.length;
    r.provider.syncTurn('user turn two', 'reply two');
    r.provider.onSessionSwitch('s2', { reset: true });
    r.provider.syncTurn('user turn three', 'reply three');
    await idle(r);
    expect(r.backend.requests.length).toBe(before);
    // s1's commit waits for its held turn: not refused, not given up.
    expect(r.logs.contains(/committing session s1 failed/)).toBe(false);
    expect(fs.existsSync(markerFile(r.home, 's1'))).toBe(true);

    r.backend.clearFaults();
    await clock.advance(60_000);
    r.provider.syncTurn('user turn four', 'reply four'); // half-open: the held turns are the trial
    await idle(r);
    expect(r.provider.health()?.status).toBe('ok');
    expect(accepted(r)).toEqual([
      ['s1', ['user turn one', 'reply one']],
      ['s1', ['user turn two', 'reply two']],
      ['s2', ['user turn three', 'reply three']],
      ['s2', ['user turn four', 'reply four']],
    ]);
    const order = r.backend.requests.map((q) => `${q.route} ${q.params.sid ?? ''}`);
    expect(order.filter((q) => q === `${COMMIT} s1`)).toHaveLength(1);
    expect(order.indexOf(`${COMMIT} s1`)).toBeGreaterThan(order.lastIndexOf(`${BATCH} s1`));
    expect(r.backend.state.sessions.s1!.archived).toBe(4);
    expect(fs.existsSync(markerFile(r.home, 's1'))).toBe(false);
    expect(r.logs.contains('OpenViking: reachable again; calls resumed.')).toBe(true);
  });

  it('a half-open trial its caller stopped decides nothing; one cut short by its deadline counts and reopens it for a full cooldown', async () => {
    const r = await open({ provider: { breakerCooldownMs: 60_000 } });
    await openBreaker(r);
    r.backend.clearFaults();
    r.backend.fail({ type: 'timeout', count: 2, route: 'POST /api/v1/search/find' });
    await (r.clock as ManualClock).advance(60_000);
    /** A search that reaches the (hung) server and is then aborted with `reason`. */
    const cutShort = async (reason: unknown) => {
      const sent = r.backend.requests.length;
      const caller = new AbortController();
      const call = r.provider.handleToolCall(TOOL_NAMES.search, { query: 'x' }, { signal: caller.signal });
      for (let i = 0; i < 200 && r.backend.requests.length === sent; i++) await tick();
      expect(r.backend.requests.length).toBe(sent + 1); // the trial reached the (hung) server
      caller.abort(reason);
      expect(json(await call).error).toBeDefined();
    };
    // The user pressed stop: no verdict, so the next request is the trial again.
    await cutShort(new Error('turn cancelled'));
    expect(r.provider.health()?.consecutiveFailures).toBe(5);
    // The manager's budget runs out (core's deadlines abort with a TimeoutError): counted.
    await cutShort(new TimeoutError("handleToolCall 'openviking' timed out after 2000 ms", 2000));
    const before = r.backend.requests.length;
    const refused = json(await r.provider.handleToolCall(TOOL_NAMES.search, { query: 'y' }));
    expect(refused.error).toMatch(
      /^OpenViking is unavailable after 6 consecutive failed requests; retry after 60 s\.$/,
    );
    expect(r.backend.requests.length).toBe(before);
    expect(r.provider.health()?.status).toBe('down');
  });

  it('what an outage holds is capped: the oldest messages go, one warning, the count in health() and after recovery', async () => {
    const r = await open({
      provider: { breakerCooldownMs: 60_000, heldLimits: { messages: 4, chars: 1_000_000 } },
    });
    await openBreaker(r);
    for (let n = 1; n <= 4; n++) r.provider.syncTurn(`user turn ${n}`, `reply ${n}`);
    const warnings = r.logs.messages().filter((m) => m.includes('dropping the oldest'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /exceed 4 messages or 1000000 characters; dropping the oldest \(2 message\(s\) so far/,
    );
    expect(r.provider.health()?.reason).toMatch(
      / 4 message\(s\) held for delivery\. 4 held message\(s\) dropped/,
    );

    r.backend.clearFaults();
    await (r.clock as ManualClock).advance(60_000);
    r.provider.syncTurn('user turn 5', 'reply 5');
    await idle(r);
    expect(accepted(r)).toEqual([
      ['s1', ['user turn 4', 'reply 4']],
      ['s1', ['user turn 5', 'reply 5']],
    ]);
    expect(r.logs.contains('6 held message(s) were dropped during the outage')).toBe(true);
    // The turns the cap dropped left the outbox too: nothing waits for a later start.
    expect(r.provider.turnsOnDisk).toBe(0);
  });

  it('the connection test bypasses it and is not counted; a shutdown while open leaves the marker, so the next start commits', async () => {
    const r = await open({ provider: { breakerCooldownMs: 60_000 } });
    r.provider.syncTurn('user turn one', 'reply one');
    await idle(r);
    await openBreaker(r);
    r.backend.clearFaults();
    const before = r.backend.requests.length;
    expect((await settled(r, r.provider.probe())).status).toBe('ok');
    expect(r.backend.requests.length).toBeGreaterThan(before);
    expect(r.provider.health()?.status).toBe('down');

    r.provider.syncTurn('user turn two', 'reply two');
    await settled(r, r.provider.shutdown({ timeoutMs: 1000 }));
    expect(r.logs.contains(/2 held message\(s\) were not sent before shutdown/)).toBe(true);
    expect(fs.existsSync(markerFile(r.home, 's1'))).toBe(true);
    const next = await r.open({ sessionId: 's9' });
    await settled(r, next.idle());
    expect(r.backend.state.sessions.s1!.commits).toBe(1);
    expect(fs.existsSync(markerFile(r.home, 's1'))).toBe(false);
  });
});
