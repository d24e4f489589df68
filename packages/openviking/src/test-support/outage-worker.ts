/**
 * The child of the outage kill -9 test: a provider on the parent's fake server (FAKE_URL) in
 * HOME_DIR, whose message posts all fail. It syncs turns of session `crashed` and prints `held <n>`
 * once turn n is journaled on disk, until it is killed. Run with `node --import tsx`.
 */
import { silentLogger } from '@hermes-memory/core';
import { createOpenvikingProvider } from '../index';

const provider = createOpenvikingProvider({ endpoint: process.env.FAKE_URL, autoStart: false });
await provider.initialize('crashed', {
  hermesHome: process.env.HOME_DIR!,
  platform: 'cli',
  agentContext: 'primary',
  logger: silentLogger,
  env: {},
});
await provider.idle();
for (let n = 1; ; n++) {
  provider.syncTurn(`Lighthouse fact number ${n} is worth keeping.`, 'Noted.');
  await provider.journaled();
  process.stdout.write(`held ${n}\n`);
  await new Promise((resolve) => setTimeout(resolve, 5));
}
