/**
 * A child agent for the kill -9 test: a Mem0 provider on `argv[2]` (HERMES_HOME) against the
 * Platform fake at `argv[3]`, which fails every add. It syncs turns and prints `held <n>` once turn
 * n is journaled on disk, until it is killed.
 */
import { silentLogger } from '@hermes-memory/core';
import { Mem0Provider } from '../../src/index';

const [home, url, apiKey] = process.argv.slice(2) as [string, string, string];
const provider = new Mem0Provider({ apiKey, platformURL: url });
await provider.initialize('s-1', {
  hermesHome: home,
  platform: 'cli',
  agentContext: 'primary',
  logger: silentLogger,
  env: {},
});
for (let n = 1; ; n++) {
  provider.syncTurn(`user turn ${n} is about tea.`, `reply ${n}`);
  await provider.journaled();
  process.stdout.write(`held ${n}\n`);
  await new Promise((resolve) => setTimeout(resolve, 5));
}
