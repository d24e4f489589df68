/**
 * A child agent for the kill -9 test: a Honcho provider on `argv[2]` (HERMES_HOME) against the fake
 * at `argv[3]`, which is failing. It saves turns with writeFrequency "session" (buffered, nothing
 * reaches the server) and prints `held <n>` once turn n is in the outbox on disk, until killed.
 */
import { silentLogger } from '@hermes-memory/core';
import { HonchoProvider } from '../../src/index';
import { honchoMessagesOnDisk } from '../../src/session/outbox';

const [home, url, apiKey] = process.argv.slice(2) as [string, string, string];
const provider = new HonchoProvider(
  {
    cwd: '/srv/projects/demo',
    userHome: home,
    config: { apiKey, baseUrl: url, peerName: 'alice', timeout: 5, writeFrequency: 'session' },
  },
  { hermesHome: home, env: {} },
);
await provider.initialize('session-1', {
  hermesHome: home,
  platform: 'cli',
  agentContext: 'primary',
  logger: silentLogger,
  env: {},
});
for (let n = 1; ; n++) {
  await provider.syncTurn(`user turn ${n}`, `assistant reply ${n}`);
  while (honchoMessagesOnDisk(home) < 2 * n) await new Promise((resolve) => setTimeout(resolve, 1));
  process.stdout.write(`held ${n}\n`);
}
