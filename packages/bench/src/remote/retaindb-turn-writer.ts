/**
 * Child of the RetainDB kill -9 run (`retaindb-kill9.ts`). argv: `<hermesHome> <fakeURL> <label>
 * <first> <last>`. Opens the provider on the home, syncs turns `first`…`last-1` — each carrying
 * the marker `<label>t<i>` — printing `ack <marker>` the moment `syncTurn` returned (the turn is
 * then on disk: what the parent holds it to), then `drained` once its writer emptied the queue,
 * then idles until it is killed. Run with `node --import tsx`.
 */
import { silentLogger } from '@hermes-memory/core';
import { createRetaindbProvider } from '@hermes-memory/retaindb';

const [hermesHome, baseURL, label, firstText, lastText] = process.argv.slice(2);
if (!hermesHome || !baseURL || !label) {
  process.stderr.write('usage: retaindb-turn-writer <hermesHome> <fakeURL> <label> <first> <last>\n');
  process.exit(64);
}
const provider = createRetaindbProvider(
  { baseURL, apiKey: 'bench-key', project: 'bench', backoffMs: 20, maxBackoffMs: 100 },
  { env: {} },
);
await provider.initialize('kill9-session', {
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
