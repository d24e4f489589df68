import { ManualClock } from '@hermes-memory/core';
import { afterEach, describe, expect, it } from 'vitest';
import { applyReasoningHeuristic, type DialecticSettings, runDialecticDepth } from '../src/recall/dialectic';
import { type TwoLayerOptions, TwoLayerRecall } from '../src/recall/two-layer';
import { type Rig, startRig } from './harness';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

function recall(overrides: Partial<TwoLayerOptions> & Pick<TwoLayerOptions, 'runDialectic'>): TwoLayerRecall {
  return new TwoLayerRecall({
    contextCadence: 1,
    dialecticCadence: 1,
    injectionFrequency: 'every-turn',
    firstTurnBaseWaitMs: 0,
    firstTurnDialecticWaitMs: 0,
    hungAfterMs: 60_000,
    fetchBase: async () => '',
    ...overrides,
  });
}

const settings = (over: Partial<DialecticSettings> = {}): DialecticSettings => ({
  depth: 1,
  depthLevels: undefined,
  reasoningLevel: 'low',
  reasoningHeuristic: true,
  reasoningLevelCap: 'high',
  ...over,
});

describe('honcho dialectic', () => {
  it('§2.7.17 with dialecticCadence 2 a dialectic fires at most every 2 turns; each empty result widens the gap by 1, up to 16', async () => {
    const fired: number[] = [];
    let answer = 'The user writes compilers in Rust.';
    const layers = recall({
      dialecticCadence: 2,
      runDialectic: async () => {
        fired.push(layers.turn);
        return answer;
      },
    });
    for (let turn = 1; turn <= 10; turn++) {
      layers.setTurn(turn);
      layers.queue('what matters to the user now?');
      await layers.idle(1000);
    }
    expect(fired).toEqual([1, 3, 5, 7, 9]);

    fired.length = 0;
    answer = '';
    for (let turn = 11; turn <= 400; turn++) {
      layers.setTurn(turn);
      layers.queue('what matters to the user now?');
      await layers.idle(1000);
    }
    const gaps = fired.slice(1).map((t, i) => t - fired[i]!);
    expect(gaps.slice(0, 4)).toEqual([3, 4, 5, 6]);
    expect(Math.max(...gaps)).toBe(16);
    expect(gaps.slice(-3)).toEqual([16, 16, 16]);
    expect(layers.snapshot().effectiveCadence).toBe(16);
  });

  it('§2.7.18 a pending dialectic result older than cadence × 2 turns is discarded on read', async () => {
    const layers = recall({ dialecticCadence: 1, runDialectic: async () => 'Likes sailing.' });
    layers.setTurn(1);
    layers.queue('hobbies?');
    await layers.idle(1000);
    layers.setTurn(4); // fired on turn 1: 3 turns old > 1 × 2
    expect((await layers.serve('and now?', { trivial: false })).dialectic).toBe('');

    const fresh = recall({ dialecticCadence: 1, runDialectic: async () => 'Likes sailing.' });
    fresh.setTurn(1);
    fresh.queue('hobbies?');
    await fresh.idle(1000);
    fresh.setTurn(3); // 2 turns old: still served
    expect((await fresh.serve('and now?', { trivial: false })).dialectic).toBe('Likes sailing.');
  });

  it('§2.7.19 a prefetch thread older than timeout × 2 counts as dead and does not block new fires', async () => {
    const clock = new ManualClock();
    const starts: AbortSignal[] = [];
    const layers = recall({
      hungAfterMs: 2_000,
      clock,
      runDialectic: (_q, { signal }) => {
        starts.push(signal);
        return new Promise<string>((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(signal.reason)),
        );
      },
    });
    const tick = () => new Promise((resolve) => setImmediate(resolve));
    layers.setTurn(1);
    layers.queue('first');
    await tick();
    layers.setTurn(5);
    layers.queue('second');
    expect(starts).toHaveLength(1); // still alive: blocks
    await clock.advance(2_001);
    layers.setTurn(6);
    layers.queue('third');
    await tick();
    expect(starts).toHaveLength(2);
    expect(starts[0]!.aborted).toBe(true);
    layers.close();
  });

  it('§2.7.20 depth 2: a pass-0 answer over 300 characters makes one call; a short one two (audit prompt); an empty one reuses the base prompt', async () => {
    const run = async (first: string) => {
      const prompts: string[] = [];
      await runDialecticDepth(settings({ depth: 2 }), { query: 'q', cold: true }, async (prompt) => {
        prompts.push(prompt);
        return prompts.length === 1 ? first : 'second answer';
      });
      return prompts;
    };
    expect(await run('x'.repeat(301))).toHaveLength(1);
    const short = await run('Likes tea.');
    expect(short).toHaveLength(2);
    expect(short[1]).toMatch(/Given this initial assessment/);
    expect(short[1]).toContain('Likes tea.');
    const empty = await run('');
    expect(empty).toHaveLength(2);
    expect(empty[1]).toBe(empty[0]);

    // Through the SDK to the fake: a long answer ends the passes after one chat call.
    rig = await startRig();
    const writer = rig.provider({ writeFrequency: 'turn' });
    await rig.init(writer);
    await writer.syncTurn(
      `I build compilers. ${'I love long detailed notes about parsers and type systems. '.repeat(8)}`,
      'ok',
    );
    const provider = rig.provider({ dialecticDepth: 2, queryRewrite: true }); // no prewarm
    await rig.init(provider, 's2');
    await provider.idle();
    provider.onTurnStart(1, 'x');
    const before = rig.fake.requestsTo('POST /v3/workspaces/:workspace/peers/:peer/chat').length;
    await provider.prefetch('Tell me about compilers and parsers');
    await provider.idle();
    const calls = rig.fake.requestsTo('POST /v3/workspaces/:workspace/peers/:peer/chat').slice(before);
    expect(calls).toHaveLength(1);
  });

  it('§2.7.21 the reasoning heuristic turns "low" into "medium" at 150 characters and "high" at 450; a "medium" cap holds both', () => {
    const s = settings();
    expect(applyReasoningHeuristic(s, 'low', 'q'.repeat(100))).toBe('low');
    expect(applyReasoningHeuristic(s, 'low', 'q'.repeat(150))).toBe('medium');
    expect(applyReasoningHeuristic(s, 'low', 'q'.repeat(450))).toBe('high');
    const capped = settings({ reasoningLevelCap: 'medium' });
    expect(applyReasoningHeuristic(capped, 'low', 'q'.repeat(150))).toBe('medium');
    expect(applyReasoningHeuristic(capped, 'low', 'q'.repeat(450))).toBe('medium');
    expect(applyReasoningHeuristic(settings({ reasoningHeuristic: false }), 'low', 'q'.repeat(450))).toBe(
      'low',
    );
  });

  it('§2.7.31 on_session_switch discards a dialectic result in flight for the old session', async () => {
    let release: (value: string) => void = () => undefined;
    const layers = recall({ runDialectic: () => new Promise<string>((resolve) => (release = resolve)) });
    layers.setTurn(1);
    layers.queue('old session question');
    await Promise.resolve();
    layers.newSession();
    release('About the OLD session.');
    await layers.idle(1000);
    layers.setTurn(2);
    expect((await layers.serve('new session', { trivial: false })).dialectic).toBe('');
    // An old-session failure does not widen the new session's backoff.
    expect(layers.snapshot().emptyStreak).toBe(0);

    // Through the provider: the switch drops what the old session prepared (no prewarm for the
    // new one, so anything served on turn 2 could only be the old session's result).
    rig = await startRig();
    const writer = rig.provider({
      writeFrequency: 'turn',
      sessionStrategy: 'per-session',
      queryRewrite: true,
    });
    await rig.init(writer, 'old');
    await writer.syncTurn('I am learning the cello.', 'Nice.');
    writer.onTurnStart(1, 'cello?');
    writer.queuePrefetch('what instrument am I learning?');
    writer.onSessionSwitch('new', { reset: true });
    await writer.idle();
    writer.onTurnStart(2, 'hi');
    expect(await writer.prefetch('ok')).toBe('');
  });
});
