/**
 * Test-only (not exported): a child agent for the kill -9 test. A ByteRover provider on `argv[2]`
 * (HERMES_HOME) with the fake `brv` at `argv[3]`, which fails every curate. It syncs turns and
 * prints `held <n>` once turn n is journaled on disk, until it is killed.
 */
import { silentLogger } from '@hermes-memory/core';
import { ByteroverProvider } from './byterover-provider';

const [home, brvPath] = process.argv.slice(2) as [string, string];
const env = { PATH: process.env.PATH, HOME: home };
const provider = new ByteroverProvider({ brvPath }, { env, hermesHome: home });
provider.initialize('s-1', {
  hermesHome: home,
  platform: 'cli',
  agentContext: 'primary',
  logger: silentLogger,
  env,
});
for (let n = 1; ; n++) {
  provider.syncTurn(`User turn ${n} is about green tea.`, `reply ${n}`);
  await provider.journaled();
  process.stdout.write(`held ${n}\n`);
  await new Promise((resolve) => setTimeout(resolve, 5));
}
