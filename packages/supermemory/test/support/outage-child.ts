/**
 * A child agent for the kill -9 test: a Supermemory provider on `argv[2]` (HERMES_HOME) against the
 * fake at `argv[3]`. It syncs turns of session `s-1` and prints `held <n>` once turn n is journaled
 * on disk, until it is killed (the session never ends, so nothing is ingested).
 */
import { silentLogger } from '@hermes-memory/core';
import { SupermemoryProvider } from '../../src/index';

const [home, url, apiKey] = process.argv.slice(2) as [string, string, string];
const provider = new SupermemoryProvider(
  { apiKey, baseURL: url, apiTimeout: 2 },
  { hermesHome: home, env: {} },
);
provider.initialize('s-1', {
  hermesHome: home,
  platform: 'cli',
  agentContext: 'primary',
  logger: silentLogger,
  env: {},
});
for (let n = 1; ; n++) {
  provider.syncTurn(`user turn ${n}`, `reply ${n}`);
  await provider.journaled();
  process.stdout.write(`held ${n}\n`);
}
