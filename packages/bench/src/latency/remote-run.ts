/**
 * `node --import tsx src/latency/remote-run.ts [provider...] [--runs N] [--fault-turns N]
 * [--model-call-ms N] [--healthy]`: the remote providers' turn overhead alone (the latency suite
 * runs it too), printed as a markdown table. `--healthy` skips the fault modes (for profiling the
 * warm path); `--fault-turns` (default 1000) and `--model-call-ms` (the idle gap between turns,
 * default 20) are `RemoteRunOptions`.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { ms, table } from '../report/markdown';
import { COMPARISON_PROVIDERS, REMOTE_PROVIDERS } from './providers';
import { type RemoteRunOptions, remoteTurnOverhead } from './remote';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    runs: { type: 'string', default: '1000' },
    'fault-turns': { type: 'string' },
    'model-call-ms': { type: 'string' },
    healthy: { type: 'boolean', default: false },
  },
});
const count = (flag: string, value: string | undefined, min: number): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${flag} must be an integer ≥ ${min} (got '${value}')`);
  return n;
};
const faultTurns = count('fault-turns', values['fault-turns'], 1);
const modelCallMs = count('model-call-ms', values['model-call-ms'], 0);
const options: RemoteRunOptions = {
  runs: count('runs', values.runs, 1) ?? 1000,
  ...(faultTurns !== undefined ? { faultTurns } : {}),
  ...(modelCallMs !== undefined ? { modelCallMs } : {}),
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
