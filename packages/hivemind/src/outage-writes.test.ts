import { afterAll, describe, expect, it } from 'vitest';
import type { HivemindProvider as Provider } from './index';
import { introduceBobAndCarol, json, openAgent } from './test-support';
import { startFakeHomeserver } from './testing';

/**
 * Hivemind's writes are its tools (a message to a peer, an introduction): each is one request
 * the tool awaits, nothing is queued behind the agent's back, and `syncTurn` stores nothing. So an
 * outage cannot lose a write silently: the model is told the send failed, shutdown has nothing
 * left to deliver, and a kill -9 can only cut short a call whose answer the model never got.
 */
const server = await startFakeHomeserver();
const opened: Provider[] = [];
afterAll(async () => {
  for (const provider of opened.splice(0)) await provider.shutdown({ timeoutMs: 1000 });
  await server.close();
});
const SEND = 'PUT /_matrix/client/v3/rooms/:room/send/:type/:txn';

describe('hivemind writes under outage and shutdown', () => {
  it('send_to_peer while the homeserver answers 503: a JSON error to the model, nothing queued, nothing stored', async () => {
    const { bob } = await introduceBobAndCarol(server);
    const bobs = await openAgent(server, bob, opened, { settings: { maxRetries: 0 } });
    await bobs.idle();
    const stored = () => server.requests.filter((r) => r.route === SEND && r.status === 200).length;
    const before = stored();
    server.fail({ type: 'status', status: 503, count: 1000 });
    const answer = json(
      await bobs.handleToolCall('hivemind_send_to_peer', {
        peer: 'carol',
        message: 'Can you audit my enclave?',
      }),
    );
    expect(answer).toMatchObject({ success: false, error: expect.stringMatching(/503/) });
    expect(stored()).toBe(before);
    // Nothing was accepted for later: no background work holds the message.
    bobs.syncTurn('Please tell Carol about the audit.', 'I could not reach her.');
    await bobs.idle();
    expect(bobs.pendingWork).toBe(0);
    server.clearFaults();
    const retried = json(
      await bobs.handleToolCall('hivemind_send_to_peer', {
        peer: 'carol',
        message: 'Can you audit my enclave?',
      }),
    );
    expect(retried).toMatchObject({ success: true, sent: true });
    expect(stored()).toBe(before + 1);
  });
});
