/**
 * A child agent for the kill -9 test: a Hindsight provider on `argv[2]` (HERMES_HOME) against the
 * fake at `argv[3]`, which fails every request. It syncs turns and prints `held <n>` once turn n is
 * journaled on disk, until it is killed.
 */
import { silentLogger } from '@hermes-memory/core';
import { HindsightProvider } from '../../src/index';

const [home, url, apiKey] = process.argv.slice(2) as [string, string, string];
const provider = new HindsightProvider(
  { apiKey, apiURL: url, timeout: 5 },
  { hermesHome: home, env: { HOME: home } },
);
provider.initialize('s-1', {
  hermesHome: home,
  platform: 'cli',
  agentContext: 'primary',
  logger: silentLogger,
  env: { HOME: home },
});
for (let n = 1; ; n++) {
  provider.syncTurn(`user turn ${n}`, `reply ${n}`);
  await provider.journaled();
  process.stdout.write(`held ${n}\n`);
}
