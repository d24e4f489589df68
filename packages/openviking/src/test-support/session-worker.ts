/**
 * The child of the kill -9 test: a provider on the parent's fake server (FAKE_URL) in HOME_DIR,
 * which syncs one turn of session SESSION_ID, says `ack <session>` once the turn reached the
 * server, and then runs until it is killed. Run with `node --import tsx`.
 */
import { silentLogger } from '@hermes-memory/core';
import { createOpenvikingProvider } from '../index';

const provider = createOpenvikingProvider({ endpoint: process.env.FAKE_URL, autoStart: false });
const sessionId = process.env.SESSION_ID ?? 'crashed';
await provider.initialize(sessionId, {
  hermesHome: process.env.HOME_DIR!,
  platform: 'cli',
  agentContext: 'primary',
  logger: silentLogger,
  env: {},
});
await provider.idle();
provider.syncTurn(`The user said something worth keeping in ${sessionId}`, 'Noted.');
await provider.idle();
process.stdout.write(`ack ${sessionId} ${provider.runId}\n`);
setInterval(() => {}, 1 << 30);
