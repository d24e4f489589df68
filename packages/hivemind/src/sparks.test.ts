import { type ChatRequest, type ChatResponse, type LlmClient, ManualClock } from '@hermes-memory/core';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HivemindProvider } from './index';
import { createHivemindProvider } from './index';
import { PeerDirectory } from './peers';
import { SPARKS_KEY, type Spark, SparkEngine, SUMMARY_KEY } from './sparks';
import { clientFor, initContext, introduceByHand, json, openAgent, settingsFor } from './test-support';
import { type FakeMatrixAccount, startFakeHomeserver } from './testing';

/**
 * The ambient spark engine (§5.5) with a scripted model: what it asks, when, and what it stores,
 * over real HTTP on the fake homeserver.
 */
const server = await startFakeHomeserver();
afterAll(() => server.close());
beforeEach(() => server.reset());
const opened: HivemindProvider[] = [];
afterEach(async () => {
  for (const provider of opened.splice(0)) await provider.shutdown({ timeoutMs: 1000 });
});

/** Needs and offers per peer name, and which pairs the "model" finds worth an introduction. */
interface Script {
  profiles: Record<string, { needs: string[]; offers: string[] }>;
  verdict?: (a: string, b: string) => { should_introduce: boolean; reason: string; confidence: string };
}

function scriptedLlm(
  script: Script,
): LlmClient & { calls: ChatRequest[]; summaries: string[]; pairs: string[] } {
  const calls: ChatRequest[] = [];
  const summaries: string[] = [];
  const pairs: string[] = [];
  const answer = (content: unknown): ChatResponse => ({
    content: JSON.stringify(content),
    toolCalls: [],
    finishReason: 'stop',
    model: 'scripted',
  });
  return {
    model: 'scripted',
    calls,
    summaries,
    pairs,
    async chat(request) {
      calls.push(request);
      const user = String(request.messages.at(-1)?.content ?? '');
      const peer = /^Peer: (\S+)/.exec(user)?.[1];
      if (peer) {
        summaries.push(peer);
        const profile = script.profiles[peer] ?? { needs: [], offers: [] };
        return answer({
          ...profile,
          expertise: profile.offers,
          summary_text: `${peer} needs ${profile.needs.join(', ') || 'nothing'}.`,
        });
      }
      const [a, b] = user.split('\n').map((line) => line.split(':')[0]!);
      pairs.push(`${a}+${b}`);
      return answer(
        script.verdict?.(a!, b!) ?? { should_introduce: false, reason: 'no match', confidence: 'low' },
      );
    },
  };
}

/** `hub` was introduced (by an operator) to every named peer. */
async function hubWith(names: readonly string[]) {
  const operator = server.registerUser('operator');
  const hub = server.registerUser('hub');
  const peers: Record<string, FakeMatrixAccount> = {};
  for (const name of names) {
    peers[name] = server.registerUser(name);
    await introduceByHand(
      clientFor(server, operator),
      { userId: hub.userId, about: 'The hub.' },
      { userId: peers[name]!.userId, about: `${name} is a peer.` },
    );
  }
  return { hub, peers };
}

async function engineFor(hub: FakeMatrixAccount, llm: LlmClient) {
  const client = clientFor(server, hub);
  const directory = new PeerDirectory(client);
  await directory.refresh();
  const engine = new SparkEngine(client, llm, () => Date.parse('2026-04-03T20:00:00Z'));
  const run = async () => {
    await directory.refresh();
    await engine.run(directory.peers(), (roomId) => directory.activity(roomId));
  };
  return { client, directory, engine, run };
}

const storedSparks = (account: FakeMatrixAccount) =>
  ((server.state.users[account.userId]!.accountData[SPARKS_KEY] ?? { sparks: [] }) as { sparks: Spark[] })
    .sparks;

describe('spark engine', () => {
  it('§5.11.10 a summary is refreshed when missing or 5+ messages behind; at most 2 per run; only the first 10 peers', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `peer-${String(i + 1).padStart(2, '0')}`);
    const { hub, peers } = await hubWith(names);
    const llm = scriptedLlm({ profiles: {} });
    const { run } = await engineFor(hub, llm);
    await run();
    expect(llm.summaries).toHaveLength(2);
    for (let i = 0; i < 6; i++) await run();
    expect(new Set(llm.summaries).size).toBe(10);
    expect(llm.summaries).not.toContain('peer-11');
    expect(llm.summaries).not.toContain('peer-12');
    const before = llm.summaries.length;
    await run();
    expect(llm.summaries.length).toBe(before); // nothing new: nothing asked
    // 4 new messages: not stale yet; a 5th makes it stale.
    const first = peers['peer-01']!;
    const room = Object.values(server.state.rooms).find(
      (r) => r.state[`m.room.member\u0000${first.userId}`] && r.state[`m.room.member\u0000${hub.userId}`],
    )!;
    await clientFor(server, first).join(room.roomId);
    for (let i = 1; i <= 4; i++)
      await clientFor(server, first).send(room.roomId, 'm.room.message', {
        msgtype: 'm.text',
        body: `m${i}`,
      });
    await run();
    expect(llm.summaries.length).toBe(before);
    await clientFor(server, first).send(room.roomId, 'm.room.message', { msgtype: 'm.text', body: 'm5' });
    await run();
    expect(llm.summaries.slice(before)).toEqual(['peer-01']);
  });

  it('§5.11.11 summaries are stored in room account data with needs, offers, expertise, summary_text, last_updated, message_count_at_update', async () => {
    const { hub } = await hubWith(['bob']);
    const llm = scriptedLlm({ profiles: { bob: { needs: ['an audit'], offers: ['compilers'] } } });
    const { run } = await engineFor(hub, llm);
    await run();
    const stored = Object.values(server.state.users[hub.userId]!.roomAccountData)
      .map((r) => r[SUMMARY_KEY])
      .filter(Boolean);
    expect(stored).toEqual([
      {
        peer_name: 'bob',
        needs: ['an audit'],
        offers: ['compilers'],
        expertise: ['compilers'],
        summary_text: 'bob needs an audit.',
        last_updated: '2026-04-03T20:00:00.000Z',
        message_count_at_update: 2,
      },
    ]);
    expect(llm.calls[0]!.maxTokens).toBe(300);
    expect(String(llm.calls[0]!.messages[1]!.content)).toContain('Introduction: bob is a peer.');
  });

  it('§5.11.12 pairs are evaluated only when a summary changed and two exist; only high or medium confidence is kept', async () => {
    const { hub } = await hubWith(['bob', 'carol', 'dave']);
    const confidence: Record<string, string> = {
      'bob+carol': 'high',
      'bob+dave': 'low',
      'carol+dave': 'medium',
    };
    const llm = scriptedLlm({
      profiles: {},
      verdict: (a, b) => ({
        should_introduce: true,
        reason: `${a} and ${b} fit.`,
        confidence: confidence[`${a}+${b}`] ?? 'low',
      }),
    });
    const { run } = await engineFor(hub, llm);
    await run(); // bob and carol summarised: one pair
    expect(llm.pairs).toEqual(['bob+carol']);
    await run(); // dave summarised: the two new pairs (bob+carol is already a spark)
    expect(llm.pairs).toEqual(['bob+carol', 'bob+dave', 'carol+dave']);
    await run(); // no summary changed: no evaluation
    expect(llm.pairs).toHaveLength(3);
    expect(storedSparks(hub).map((s) => `${s.peer_a}+${s.peer_b}:${s.confidence}`)).toEqual([
      'bob+carol:high',
      'carol+dave:medium',
    ]);
  });

  it('§5.11.13 sparks are stored globally, pending, with an 8-hex id and created_at, and a pair is never suggested twice', async () => {
    const { hub, peers } = await hubWith(['bob', 'carol']);
    const llm = scriptedLlm({
      profiles: {},
      verdict: () => ({ should_introduce: true, reason: 'fit', confidence: 'high' }),
    });
    const { run, engine } = await engineFor(hub, llm);
    await run();
    const [spark] = storedSparks(hub);
    expect(spark).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}$/),
      peer_a: 'bob',
      peer_b: 'carol',
      reason: 'fit',
      confidence: 'high',
      created_at: '2026-04-03T20:00:00.000Z',
      status: 'pending',
    });
    await engine.setStatus('carol', 'bob', 'dismissed');
    // bob's conversation moves on: his summary is refreshed, the pair is not asked about again.
    const room = Object.keys(server.state.users[hub.userId]!.roomAccountData).find((id) =>
      JSON.stringify(server.state.rooms[id]!.state).includes(peers.bob!.userId),
    )!;
    await clientFor(server, peers.bob!).join(room);
    for (let i = 0; i < 5; i++)
      await clientFor(server, peers.bob!).send(room, 'm.room.message', {
        msgtype: 'm.text',
        body: `news ${i}`,
      });
    await run();
    expect(llm.summaries.filter((p) => p === 'bob')).toHaveLength(2);
    expect(llm.pairs).toEqual(['bob+carol']);
    expect(storedSparks(hub)).toHaveLength(1);
  });

  it('a model failure or an unparsable answer costs only that summary; the engine keeps going', async () => {
    const { hub } = await hubWith(['bob']);
    const broken: LlmClient = {
      model: 'broken',
      chat: async () => ({ content: 'not json', toolCalls: [], finishReason: 'stop', model: 'broken' }),
    };
    const { run } = await engineFor(hub, broken);
    await expect(run()).resolves.toBeUndefined();
    expect(Object.values(server.state.users[hub.userId]!.roomAccountData).some((r) => r[SUMMARY_KEY])).toBe(
      false,
    );
  });
});

describe('sparks in the provider', () => {
  it('§5.11.14 §5.11.15 a suggestion shows in recall and list_peers; dismissing it keeps it dismissed after a restart; introducing marks it executed', async () => {
    const { hub } = await hubWith(['bob', 'carol', 'dave']);
    const llm = scriptedLlm({
      profiles: {
        bob: { needs: ['an enclave audit'], offers: [] },
        carol: { needs: [], offers: ['TEE audits'] },
      },
      verdict: (a, b) =>
        a === 'bob' && b === 'carol'
          ? { should_introduce: true, reason: 'Bob needs what Carol offers.', confidence: 'high' }
          : { should_introduce: true, reason: `${a} and ${b} could talk.`, confidence: 'medium' },
    });
    const open = async () => {
      const provider = createHivemindProvider(settingsFor(server, hub), { env: {}, providerConfig: {} });
      await provider.initialize('s1', { ...initContext(), llm });
      opened.push(provider);
      return provider;
    };
    const provider = await open();
    await provider.idle();
    provider.queuePrefetch('x');
    await provider.idle(); // two runs: all three summarised, all three pairs evaluated
    expect(storedSparks(hub).filter((s) => s.status === 'pending')).toHaveLength(3);
    const recall = await provider.prefetch('anything new?');
    expect(recall).toContain('Suggestion: introduce bob and carol — Bob needs what Carol offers.');
    const listed = json(await provider.handleToolCall('hivemind_list_peers', {}));
    expect(listed.suggestions).toContainEqual({
      peer_a: 'bob',
      peer_b: 'carol',
      reason: 'Bob needs what Carol offers.',
      confidence: 'high',
    });
    expect(json(await provider.handleToolCall('hivemind_get_peer_info', { peer: 'bob' })).peer).toMatchObject(
      {
        needs: ['an enclave audit'],
        summary: 'bob needs an enclave audit.',
      },
    );

    expect(
      json(await provider.handleToolCall('hivemind_dismiss_spark', { peer_a: 'dave', peer_b: 'bob' })),
    ).toEqual({
      success: true,
      dismissed: true,
      peer_a: 'dave',
      peer_b: 'bob',
    });
    const introduced = json(
      await provider.handleToolCall('hivemind_introduce_peers', { peer_a: 'carol', peer_b: 'bob' }),
    );
    expect(introduced.introduced).toBe(true);
    const statuses = Object.fromEntries(storedSparks(hub).map((s) => [`${s.peer_a}+${s.peer_b}`, s.status]));
    expect(statuses).toEqual({ 'bob+carol': 'executed', 'bob+dave': 'dismissed', 'carol+dave': 'pending' });
    // The introduction carried carol's summary, not only what the hub was told.
    const room = Object.values(server.state.rooms).find((r) => r.creator === hub.userId)!;
    expect(room.events.map((e) => e.event.content.body).filter(Boolean)).toContain(
      'About @carol:localhost: carol needs nothing.',
    );

    await provider.shutdown();
    const restarted = await open();
    const again = json(await restarted.handleToolCall('hivemind_list_peers', {}));
    expect(again.suggestions).toEqual([
      { peer_a: 'carol', peer_b: 'dave', reason: 'carol and dave could talk.', confidence: 'medium' },
    ]);
  });

  it('turn 1 waits for the peers, never for the model: a hung model call leaves the roster on time', async () => {
    const { hub } = await hubWith(['bob']);
    const hung: LlmClient = {
      model: 'hung',
      chat: (request) =>
        new Promise((_, reject) =>
          request.signal?.addEventListener('abort', () => reject(request.signal?.reason)),
        ),
    };
    // An injected clock that never moves: the turn can only end by the peers arriving (the model
    // never answers, and no wait can time out), so a prefetch that waited for the model would hang.
    const clock = new ManualClock(Date.parse('2026-11-24T10:00:00Z'));
    const provider = createHivemindProvider(settingsFor(server, hub, { firstSyncWaitMs: 2000 }), {
      env: {},
      providerConfig: {},
      clock,
    });
    await provider.initialize('s1', { ...initContext(), llm: hung });
    opened.push(provider);
    provider.onTurnStart(1, 'hi');
    const recall = await provider.prefetch('hi');
    expect(clock.now()).toBe(Date.parse('2026-11-24T10:00:00Z'));
    expect(recall).toContain('You know 1 peer: bob.');
    expect(provider.pendingWork).toBe(1); // the model call still runs, in the background
    await provider.shutdown();
    expect(provider.pendingWork).toBe(0);
  });

  it('without a model nothing is summarised or suggested, and the tools still work', async () => {
    const { hub } = await hubWith(['bob', 'carol']);
    const provider = await openAgent(server, hub, opened);
    await provider.idle();
    expect(json(await provider.handleToolCall('hivemind_list_peers', {})).suggestions).toEqual([]);
    expect(
      json(await provider.handleToolCall('hivemind_dismiss_spark', { peer_a: 'bob', peer_b: 'carol' }))
        .dismissed,
    ).toBe(true);
    expect(storedSparks(hub).map((s) => s.status)).toEqual(['dismissed']);
  });
});
