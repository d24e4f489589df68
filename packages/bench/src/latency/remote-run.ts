/**
 * `node --import tsx src/latency/remote-run.ts [provider...] [--runs N] [--healthy]`: the remote
 * providers' turn overhead alone (the latency suite runs it too), printed as a markdown table.
 * `--healthy` skips the fault modes (for profiling the warm path).
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { ms, table } from '../report/markdown';
import { COMPARISON_PROVIDERS, REMOTE_PROVIDERS } from './providers';
import { type RemoteRunOptions, remoteTurnOverhead } from './remote';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { runs: { type: 'string', default: '1000' }, healthy: { type: 'boolean', default: false } },
});
const options: RemoteRunOptions = {
  runs: Number(values.runs),
  ...(values.healthy ? { modes: ['healthy'] } : {}),
};
// Every remote provider of the suite by default; comparison entries only when named.
const chosen =
  positionals.length === 0
    ? REMOTE_PROVIDERS
    : [...REMOTE_PROVIDERS, ...COMPARISON_PROVIDERS].filter((p) => positionals.includes(p.name));
const rows = [];
for (const entry of chosen)
  rows.push(...(await remoteTurnOverhead(entry, options, (m) => process.stderr.write(`${m}\n`))));
console.log(
  `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}\n`,
);
console.log(
  table(
    ['step', 'setup', 'runs', 'p50', 'p99', 'max', 'budget'],
    rows.map((r) => [
      r.step,
      r.setup,
      r.summary.n,
      ms(r.summary.p50),
      ms(r.summary.p99),
      ms(r.summary.max),
      r.budgetMs >= 1000 ? `≤ ${r.budgetMs / 1000} s (max)` : `p99 < ${r.budgetMs} ms`,
    ]),
  ),
);
process.exit(0);
