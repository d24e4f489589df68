/**
 * The child process of the kill -9 proof (`src/queue/kill-9.test.ts`). argv: `<hermesHome>
 * <fakeURL> <label> <first> <last>`. It opens the provider on the home, syncs turns `first`…`last-1`
 * one by one — each carrying the marker `<label>t<i>` — and prints `ack <marker>` the moment
 * `syncTurn` returned (the acknowledgement the parent holds it to), then `drained` once its writer
 * emptied the queue, then idles until it is killed. Run with `node --import tsx`.
 */
import { silentLogger } from '@hermes-memory/core';
import { createRetaindbProvider } from '../index';
import { FAKE_RETAINDB_KEY } from '../testing';

const [hermesHome, baseURL, label, firstText, lastText] = process.argv.slice(2);
if (!hermesHome || !baseURL || !label) {
  process.stderr.write('usage: turn-writer <hermesHome> <fakeURL> <label> <first> <last>\n');
  process.exit(64);
}
const provider = createRetaindbProvider({
  baseURL,
  apiKey: FAKE_RETAINDB_KEY,
  backoffMs: 20,
  maxBackoffMs: 100,
});
await provider.initialize(`kill9-session`, {
  hermesHome,
  platform: 'cli',
  agentContext: 'primary',
  logger: silentLogger,
  env: {},
});
for (let i = Number(firstText); i < Number(lastText); i++) {
  const marker = `${label}t${i}`;
  provider.syncTurn(`Turn ${i} records the marker ${marker}.`, `Stored ${marker}.`);
  process.stdout.write(`ack ${marker}\n`);
}
await provider.flush();
process.stdout.write('drained\n');
setInterval(() => {}, 1 << 30);
