/**
 * Test-only helpers (not exported from the package): agents on one fake homeserver, and an
 * operator that introduces them by hand through the same client-server calls a person's client makes.
 */
import {
  type AgentContext,
  type Clock,
  type InitContext,
  type ManualClock,
  silentLogger,
} from '@hermes-memory/core';
import type { HivemindProviderSettings } from './hivemind-settings';
import { createHivemindProvider, type HivemindProvider } from './index';
import { MatrixClient } from './matrix/client';
import type { FakeHomeserver, FakeMatrixAccount } from './testing';

export function initContext(agentContext: AgentContext = 'primary'): InitContext {
  return { hermesHome: '/nonexistent', platform: 'cli', agentContext, logger: silentLogger, env: {} };
}

/** Settings for an account on the fake: short timeouts, no retries (tests run against faults too). */
export function settingsFor(
  server: FakeHomeserver,
  account: FakeMatrixAccount,
  extra: HivemindProviderSettings = {},
): HivemindProviderSettings {
  return {
    homeserver: server.url,
    userId: account.userId,
    accessToken: account.accessToken,
    timeoutMs: 2000,
    maxRetries: 0,
    ...extra,
  };
}

/** A provider for the account, initialised, and closed by `closeAll`. */
export async function openAgent(
  server: FakeHomeserver,
  account: FakeMatrixAccount,
  opened: HivemindProvider[],
  options: { agentContext?: AgentContext; settings?: HivemindProviderSettings; clock?: Clock } = {},
): Promise<HivemindProvider> {
  const provider = createHivemindProvider(settingsFor(server, account, options.settings), {
    env: {},
    providerConfig: {},
    ...(options.clock ? { clock: options.clock } : {}),
  });
  await provider.initialize('s1', initContext(options.agentContext));
  opened.push(provider);
  return provider;
}

export function clientFor(server: FakeHomeserver, account: FakeMatrixAccount): MatrixClient {
  return new MatrixClient({
    homeserver: server.url,
    userId: account.userId,
    accessToken: account.accessToken,
    timeoutMs: 2000,
    maxRetries: 0,
  });
}

/** What a person's client does to introduce two agents: a private room, both invited, the context. */
export async function introduceByHand(
  operator: MatrixClient,
  a: { userId: string; about: string },
  b: { userId: string; about: string },
): Promise<string> {
  const roomId = await operator.createRoom({
    name: 'Introduction',
    preset: 'private_chat',
    invite: [a.userId, b.userId],
  });
  await operator.send(roomId, 'm.room.message', { msgtype: 'm.text', body: `About ${a.userId}: ${a.about}` });
  await operator.send(roomId, 'm.room.message', { msgtype: 'm.text', body: `About ${b.userId}: ${b.about}` });
  return roomId;
}

/** alice (a person's client) introduces the agents hermes-of-bob and hermes-of-carol to each other. */
export async function introduceBobAndCarol(server: FakeHomeserver) {
  const alice = server.registerUser('alice');
  const bob = server.registerUser('hermes-of-bob');
  const carol = server.registerUser('hermes-of-carol');
  const roomId = await introduceByHand(
    clientFor(server, alice),
    { userId: bob.userId, about: 'Bob builds compilers.' },
    { userId: carol.userId, about: 'Carol specializes in TEE attestation\nand security audits.' },
  );
  return { alice, bob, carol, roomId };
}

/** One turn as the manager drives it: the turn starts, recall is served, the next sync is queued. */
export async function turn(provider: HivemindProvider, n: number, message = 'hello'): Promise<string> {
  provider.onTurnStart(n, message);
  const recall = await provider.prefetch(message);
  provider.queuePrefetch(message);
  await provider.idle();
  return recall;
}

// biome-ignore lint/suspicious/noExplicitAny: tests read tool answers and fake replies by path
export type Json = any;

export const json = (text: string): Json => JSON.parse(text);

/**
 * `promise`, asserted to settle while `clock` stands still: within a few turns of the event loop,
 * no timer fired. What waits on a hung backend or on the clock never settles here.
 */
export async function settlesWithoutTime<T>(clock: ManualClock, promise: Promise<T>): Promise<T> {
  let settled = false;
  const watched = promise.finally(() => {
    settled = true;
  });
  const at = clock.now();
  for (let i = 0; i < 20 && !settled; i++) await new Promise<void>((resolve) => setImmediate(resolve));
  if (!settled || clock.now() !== at) throw new Error('expected to settle without the clock moving');
  return watched;
}
