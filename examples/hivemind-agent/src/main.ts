/**
 * Three agents meet. A person (alice) has introduced her agent ann to bob's and carol's agents;
 * ann sees that bob needs what carol offers and introduces them; on their next turn bob and carol
 * know each other, and they talk; bob's agent restarts and still knows its peers, rebuilt from the
 * homeserver alone. Each agent runs a MemoryManager with the builtin store and hivemind as a
 * read-only secondary. Offline (the default) it runs against the fake homeserver shipped in
 * `@hermes-memory/hivemind/testing`; with MATRIX_HOMESERVER and MATRIX_REGISTRATION_TOKEN set it
 * registers four fresh accounts on that homeserver instead.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createBuiltinProvider } from '@hermes-memory/builtin';
import { MemoryManager } from '@hermes-memory/core';
import { createHivemindProvider, MatrixClient } from '@hermes-memory/hivemind';
import { startFakeHomeserver } from '@hermes-memory/hivemind/testing';

export interface DemoOptions {
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  write: (text: string) => void;
}

export interface DemoResult {
  mode: 'fake' | 'live';
  /** What bob's agent got from memory on the turn after ann's introduction. */
  bobRecall: string;
  /** carol's inbox after bob wrote (hivemind_check_messages). */
  carolInbox: string;
  /** What bob's restarted agent got from memory on its first turn. */
  restartedRecall: string;
}

interface Account {
  userId: string;
  accessToken: string;
}

/** Continuwuity's two-step registration with a token (what a real homeserver and the fake both do). */
async function register(homeserver: string, token: string, username: string): Promise<Account> {
  const url = `${homeserver}/_matrix/client/v3/register`;
  const post = (body: unknown) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const password = `${username}-${Math.random().toString(36).slice(2)}`;
  const first = (await (await post({ username, password })).json()) as { session?: string };
  const done = await post({
    username,
    password,
    auth: { type: 'm.login.registration_token', token, session: first.session },
  });
  const body = (await done.json()) as { user_id?: string; access_token?: string; error?: string };
  if (!done.ok || !body.user_id || !body.access_token)
    throw new Error(`Registering ${username} failed: ${body.error ?? done.status}`);
  return { userId: body.user_id, accessToken: body.access_token };
}

/** One agent: the builtin store plus hivemind as a secondary, in its own memory home. */
async function startAgent(options: DemoOptions, name: string, homeserver: string, account: Account) {
  const home = path.join(options.home, name);
  fs.mkdirSync(home, { recursive: true });
  const manager = new MemoryManager();
  const hivemind = createHivemindProvider(
    { homeserver, userId: account.userId, accessToken: account.accessToken },
    { env: {}, providerConfig: {} },
  );
  manager.addProvider(createBuiltinProvider({}));
  manager.addProvider(hivemind, { role: 'secondary' });
  await manager.initializeAll(`${name}-session`, { hermesHome: home, env: {} });
  let turn = 0;
  return {
    manager,
    /** A turn's start: recall for the message (only turn 1 may wait for the first sync). */
    async startTurn(message: string): Promise<string> {
      await manager.onTurnStart(++turn, message);
      const recall = await manager.prefetchAll(message);
      options.write(`[${name}] turn ${turn}: ${message}\n${recall ? `${indent(recall)}\n` : ''}`);
      return recall;
    },
    /**
     * A turn's end: the next turn's background sync starts. The demo waits for it, so its output
     * is the same on every run; a real agent's next turn comes seconds later and simply finds it.
     */
    async endTurn(message: string): Promise<void> {
      manager.queuePrefetchAll(message);
      await manager.flushPending(10_000);
      await hivemind.idle();
    },
    async tool(tool: string, args: Record<string, unknown>): Promise<string> {
      const answer = await manager.handleToolCall(tool, args);
      options.write(`[${name}] ${tool} ${JSON.stringify(args)} → ${answer}\n`);
      return answer;
    },
  };
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

export async function runHivemindDemo(options: DemoOptions): Promise<DemoResult> {
  const live = Boolean(options.env.MATRIX_HOMESERVER && options.env.MATRIX_REGISTRATION_TOKEN);
  const fake = live ? undefined : await startFakeHomeserver();
  const homeserver = live ? options.env.MATRIX_HOMESERVER! : fake!.url;
  const token = live ? options.env.MATRIX_REGISTRATION_TOKEN! : fake!.registrationToken;
  const suffix = live ? `-${Date.now().toString(36)}` : '';
  options.write(
    live
      ? `Live mode: the homeserver at ${homeserver}.\n`
      : `Offline mode: the fake homeserver at ${homeserver}.\n`,
  );
  const agents: Array<Awaited<ReturnType<typeof startAgent>>> = [];
  try {
    const [alice, ann, bob, carol] = await Promise.all(
      ['alice', 'hermes-of-ann', 'hermes-of-bob', 'hermes-of-carol'].map((n) =>
        register(homeserver, token, `${n}${suffix}`),
      ),
    );
    // alice's own client introduces her agent to bob's and to carol's.
    const operator = new MatrixClient({ homeserver, ...alice!, timeoutMs: 10_000, maxRetries: 1 });
    for (const [peer, about] of [
      [bob!, 'Bob needs a security audit of his enclave before launch.'],
      [carol!, 'Carol specializes in TEE attestation and security audits.'],
    ] as const) {
      const room = await operator.createRoom({
        name: 'Introduction',
        preset: 'private_chat',
        invite: [ann!.userId, peer.userId],
      });
      await operator.send(room, 'm.room.message', {
        msgtype: 'm.text',
        body: `About ${ann!.userId}: Ann is alice's matchmaking agent.`,
      });
      await operator.send(room, 'm.room.message', {
        msgtype: 'm.text',
        body: `About ${peer.userId}: ${about}`,
      });
    }

    const annAgent = await startAgent(options, 'ann', homeserver, ann!);
    const bobAgent = await startAgent(options, 'bob', homeserver, bob!);
    const carolAgent = await startAgent(options, 'carol', homeserver, carol!);
    agents.push(annAgent, bobAgent, carolAgent);

    await annAgent.startTurn('Who do you know?');
    await bobAgent.startTurn('Any news?');
    await carolAgent.startTurn('Any news?');
    const [bobName, carolName] = [bob!, carol!].map((a) => a.userId.slice(1, a.userId.indexOf(':')));
    await annAgent.tool('hivemind_introduce_peers', {
      peer_a: bobName,
      peer_b: carolName,
      reason: 'Bob needs an enclave audit; Carol does exactly that.',
    });
    for (const agent of agents) await agent.endTurn('ok');

    const bobRecall = await bobAgent.startTurn('Who could audit my enclave?');
    await bobAgent.tool('hivemind_send_to_peer', {
      peer: carolName,
      message: 'Could you audit my enclave next week?',
    });
    await carolAgent.startTurn('Any news?');
    const carolInbox = await carolAgent.tool('hivemind_check_messages', { peer: bobName });

    // bob's agent restarts: nothing local about peers, everything comes back from the homeserver.
    await bobAgent.manager.shutdownAll();
    agents.splice(agents.indexOf(bobAgent), 1);
    const restarted = await startAgent(options, 'bob', homeserver, bob!);
    agents.push(restarted);
    const restartedRecall = await restarted.startTurn('Who do I know again?');
    return { mode: live ? 'live' : 'fake', bobRecall, carolInbox, restartedRecall };
  } finally {
    for (const agent of agents) await agent.manager.shutdownAll();
    await fake?.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hivemind-agent-'));
  runHivemindDemo({ home, env: process.env, write: (text) => process.stdout.write(text) }).finally(() =>
    fs.rmSync(home, { recursive: true, force: true }),
  );
}
