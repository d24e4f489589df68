import { createRecordingLogger, MemoryManager } from '@hermes-memory/core';
import { createHolographicProvider } from '@hermes-memory/holographic';
import { createHonchoProvider } from '@hermes-memory/honcho';
import { startFakeHoncho } from '@hermes-memory/honcho/testing';
import { tempHermesHome } from '@hermes-memory/testkit';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHivemindProvider, type HivemindProvider } from './index';
import { clientFor, introduceByHand, json, openAgent, settingsFor } from './test-support';
import { startFakeHomeserver } from './testing';

/**
 * Issue #18's acceptance, end to end over real HTTP on one fake homeserver: three agents (three
 * providers, three Matrix users) meet through an introduction, talk, survive a restart, and
 * hivemind runs as a read-only secondary beside a canonical provider in one MemoryManager.
 */
const server = await startFakeHomeserver();
afterAll(() => server.close());
beforeEach(() => server.reset());
const opened: HivemindProvider[] = [];
afterEach(async () => {
  for (const provider of opened.splice(0)) await provider.shutdown({ timeoutMs: 1000 });
});

/** A turn's start as the manager drives it: the turn number, then recall (never waits after turn 1). */
async function startTurn(provider: HivemindProvider, n: number): Promise<string> {
  provider.onTurnStart(n, 'hello');
  return provider.prefetch('hello');
}

/** A turn's end: the next turn's sync starts (the manager's queuePrefetchAll) and, here, finishes. */
async function endTurn(provider: HivemindProvider): Promise<void> {
  provider.queuePrefetch('hello');
  await provider.idle();
}

const names = (answer: string) =>
  json(answer)
    .peers.map((p: { name: string }) => p.name)
    .sort();

/** ann knows bob and carol (a person, alice, introduced her to each); bob and carol do not know each other. */
async function threeAgents() {
  const alice = server.registerUser('alice');
  const ann = server.registerUser('hermes-of-ann');
  const bob = server.registerUser('hermes-of-bob');
  const carol = server.registerUser('hermes-of-carol');
  const operator = clientFor(server, alice);
  await introduceByHand(
    operator,
    { userId: ann.userId, about: 'Ann runs a matchmaking agent.' },
    { userId: bob.userId, about: 'Bob needs a security audit of his enclave.' },
  );
  await introduceByHand(
    operator,
    { userId: ann.userId, about: 'Ann runs a matchmaking agent.' },
    { userId: carol.userId, about: 'Carol specializes in TEE attestation and security audits.' },
  );
  return {
    ann: { account: ann, provider: await openAgent(server, ann, opened) },
    bob: { account: bob, provider: await openAgent(server, bob, opened) },
    carol: { account: carol, provider: await openAgent(server, carol, opened) },
  };
}

describe('acceptance: three agents on one homeserver', () => {
  it('A introduces B and C; each sees the other with the introduction context on its next turn; they talk; a restart rebuilds the peers from the server alone', async () => {
    const { ann, bob, carol } = await threeAgents();

    // Turn 1 everywhere: each agent knows whom alice introduced it to.
    await startTurn(ann.provider, 1);
    expect(await startTurn(bob.provider, 1)).toMatch(/You know 1 peer: hermes-of-ann\./);
    expect(await startTurn(carol.provider, 1)).toMatch(/You know 1 peer: hermes-of-ann\./);
    expect(names(await ann.provider.handleToolCall('hivemind_list_peers', {}))).toEqual([
      'hermes-of-bob',
      'hermes-of-carol',
    ]);

    // During ann's turn 1, while bob and carol are still in theirs, ann introduces them.
    const introduced = json(
      await ann.provider.handleToolCall('hivemind_introduce_peers', {
        peer_a: 'hermes-of-bob',
        peer_b: 'hermes-of-carol',
        reason: 'Bob needs an enclave audit; Carol does exactly that.',
      }),
    );
    expect(introduced).toEqual({
      success: true,
      introduced: true,
      peer_a: 'hermes-of-bob',
      peer_b: 'hermes-of-carol',
    });
    await Promise.all([endTurn(ann.provider), endTurn(bob.provider), endTurn(carol.provider)]);

    // Their next turn: the other is a peer, with what ann knew about it, introduced by ann.
    const bobSees = await startTurn(bob.provider, 2);
    expect(bobSees).toContain('You know 2 peers: hermes-of-ann, hermes-of-carol.');
    expect(bobSees).toContain(
      '- hermes-of-carol (introduced by hermes-of-ann): Carol specializes in TEE attestation and security audits.',
    );
    const carolSees = await startTurn(carol.provider, 2);
    expect(carolSees).toContain(
      '- hermes-of-bob (introduced by hermes-of-ann): Bob needs a security audit of his enclave.',
    );
    // Ann's own introduction room gives ann no new peer.
    expect(await startTurn(ann.provider, 2)).toContain('You know 2 peers: hermes-of-bob, hermes-of-carol.');

    // They exchange messages.
    expect(
      json(
        await bob.provider.handleToolCall('hivemind_send_to_peer', {
          peer: 'hermes-of-carol',
          message: 'Could you audit my enclave next week?',
        }),
      ).sent,
    ).toBe(true);
    const inbox = json(
      await carol.provider.handleToolCall('hivemind_check_messages', { peer: 'hermes-of-bob' }),
    );
    expect(inbox.messages[0]).toMatchObject({
      from: 'hermes-of-bob',
      text: 'Could you audit my enclave next week?',
    });
    expect(inbox.messages.map((m: { text: string }) => m.text)).toContain(
      'Why: Bob needs an enclave audit; Carol does exactly that.',
    );
    await carol.provider.handleToolCall('hivemind_send_to_peer', {
      peer: 'hermes-of-bob',
      message: 'Yes, Tuesday works.',
    });
    await Promise.all([endTurn(bob.provider), endTurn(carol.provider)]);
    expect(await startTurn(bob.provider, 3)).toContain('1 new message from hermes-of-carol');
    const reply = json(
      await bob.provider.handleToolCall('hivemind_check_messages', { peer: 'hermes-of-carol' }),
    );
    expect(reply.messages[0]).toMatchObject({ from: 'hermes-of-carol', text: 'Yes, Tuesday works.' });

    // Restart: a new provider for bob, nothing local, rebuilds its peers from the homeserver.
    await bob.provider.shutdown();
    const mark = server.requests.length;
    const restarted = await openAgent(server, bob.account, opened);
    const recall = await startTurn(restarted, 1);
    expect(recall).toContain('You know 2 peers: hermes-of-ann, hermes-of-carol.');
    expect(recall).toContain('Carol specializes in TEE attestation');
    expect(names(await restarted.handleToolCall('hivemind_list_peers', {}))).toEqual([
      'hermes-of-ann',
      'hermes-of-carol',
    ]);
    const rebuilt = server.requests.slice(mark).map((r) => r.route);
    expect(rebuilt).not.toContain('GET /_matrix/client/v3/rooms/:room/state'); // metadata came from account data
  });
});

describe('acceptance: tiered memory (decision 0130)', () => {
  it('holographic canonical + hivemind secondary in one MemoryManager: writes reach only the canonical; recall from both, labelled', async () => {
    const { bob } = await threeAgents();
    const home = tempHermesHome('hm-hivemind-tiered-');
    const logger = createRecordingLogger();
    const manager = new MemoryManager({ logger });
    const hivemind = createHivemindProvider(settingsFor(server, bob.account), {
      env: {},
      providerConfig: {},
    });
    opened.push(hivemind);
    try {
      expect(manager.addProvider(createHolographicProvider())).toBe(true);
      expect(manager.addProvider(hivemind, { role: 'secondary' })).toBe(true);
      expect(manager.providerRole('hivemind')).toBe('secondary');
      expect(hivemind.receivesWritesAsSecondary).toBe(false);
      await manager.initializeAll('s1', {
        hermesHome: home.path,
        platform: 'cli',
        agentContext: 'primary',
        logger,
      });

      await hivemind.idle(); // the first sync (and its peer metadata writes) done before counting
      const mark = server.requests.length;
      manager.onMemoryWrite('add', 'user', 'The user keeps bees on the roof of the office.');
      manager.syncAll('I keep bees on the roof.', 'Noted.');
      await manager.onSessionEnd([
        { role: 'user', content: 'I keep bees on the roof.' },
        { role: 'assistant', content: 'Noted.' },
      ]);
      await manager.flushPending();
      // Hivemind took none of the conversation's writes: nothing was sent anywhere.
      const writes = server.requests.slice(mark).filter((r) => r.method !== 'GET');
      expect(writes).toEqual([]);
      // The canonical provider stored it.
      const facts = json(
        await manager.handleToolCall('fact_store', { action: 'search', query: 'bees roof' }),
      );
      expect(JSON.stringify(facts)).toContain('bees on the roof');

      const recall = await manager.prefetchAll('who keeps bees on the roof?');
      expect(recall).toContain('## Recall from holographic');
      expect(recall).toContain('bees on the roof');
      expect(recall).toContain('## Recall from hivemind');
      expect(recall).toContain('hermes-of-ann');
      expect(recall.indexOf('## Recall from holographic')).toBeLessThan(
        recall.indexOf('## Recall from hivemind'),
      );
      // The secondary's tools are routed to it.
      expect(names(await manager.handleToolCall('hivemind_list_peers', {}))).toEqual(['hermes-of-ann']);

      // A failing homeserver never affects the canonical recall (and hivemind serves its last roster).
      server.fail({ type: 'status', status: 500, count: 50 });
      manager.queuePrefetchAll('who keeps bees on the roof?');
      await manager.flushPending();
      await hivemind.idle();
      const degraded = await manager.prefetchAll('who keeps bees on the roof?');
      expect(degraded).toContain('bees on the roof');
      expect(degraded).toContain('hermes-of-ann');
      expect(hivemind.health()?.status).not.toBe('ok');
      server.clearFaults();
    } finally {
      await manager.shutdownAll();
      home.cleanup();
    }
  });

  it('honcho canonical (against its fake) + hivemind secondary: turns reach Honcho only; recall labelled; either backend failing leaves the other', async () => {
    const { bob } = await threeAgents();
    const honcho = await startFakeHoncho({ apiKey: 'honcho-test-key' });
    const home = tempHermesHome('hm-hivemind-honcho-');
    const manager = new MemoryManager({ logger: createRecordingLogger() });
    const hivemind = createHivemindProvider(settingsFor(server, bob.account), {
      env: {},
      providerConfig: {},
    });
    opened.push(hivemind);
    const workspace = 'tiered-honcho';
    try {
      const canonical = createHonchoProvider(
        {
          config: {
            apiKey: 'honcho-test-key',
            baseUrl: honcho.url,
            peerName: 'bob',
            workspace,
            writeFrequency: 'turn',
          },
        },
        { hermesHome: home.path, env: {} },
      );
      expect(manager.addProvider(canonical)).toBe(true);
      expect(manager.addProvider(hivemind, { role: 'secondary' })).toBe(true);
      await manager.initializeAll('s1', { hermesHome: home.path, env: {}, platform: 'cli' });
      await hivemind.idle();

      const mark = server.requests.length;
      await manager.onTurnStart(1, 'I keep bees on the roof.');
      await manager.prefetchAll('I keep bees on the roof.');
      manager.syncAll('I keep bees on the roof.', 'Noted.');
      manager.queuePrefetchAll('I keep bees on the roof.');
      await manager.flushPending(10_000);
      await hivemind.idle();
      // The turn reached Honcho; nothing of the conversation reached the homeserver (hivemind may
      // still keep its own peer metadata there, so its account-data writes are not counted).
      const stored = (honcho.state.workspaces[workspace]?.messages ?? []).map((m) => m.content);
      expect(stored).toContain('I keep bees on the roof.');
      const sent = server.requests.slice(mark).filter((r) => r.method !== 'GET');
      expect(sent.filter((r) => r.path.includes('/send/'))).toEqual([]);
      expect(sent.filter((r) => /bees|Noted/.test(r.rawBody))).toEqual([]);

      await manager.onTurnStart(2, 'who can help me with security audits?');
      const recall = await manager.prefetchAll('who can help me with security audits?');
      expect(recall).toContain('## Recall from hivemind');
      expect(recall).toContain('hermes-of-ann');
      // (Honcho's own recall on turn 2 depends on its cadences; section order is covered by the
      // holographic case above and core's tiers tests.)

      // Honcho down: hivemind's recall and tools still answer.
      honcho.fail({ type: 'status', status: 503, count: 100 });
      manager.queuePrefetchAll('anyone new?');
      await manager.flushPending(10_000);
      await manager.onTurnStart(3, 'anyone new?');
      expect(await manager.prefetchAll('anyone new?')).toContain('hermes-of-ann');
      expect(names(await manager.handleToolCall('hivemind_list_peers', {}))).toEqual(['hermes-of-ann']);
      honcho.clearFaults();

      // Homeserver down: the next turn still reaches Honcho.
      server.fail({ type: 'status', status: 500, count: 50 });
      manager.syncAll('The hive had 40,000 bees in June.', 'Noted.');
      await manager.flushPending(10_000);
      const after = (honcho.state.workspaces[workspace]?.messages ?? []).map((m) => m.content);
      expect(after).toContain('The hive had 40,000 bees in June.');
      server.clearFaults();
    } finally {
      await manager.shutdownAll();
      await honcho.close();
      home.cleanup();
    }
  });
});
