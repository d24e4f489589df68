/**
 * `node --import tsx src/latency/byterover-calls.ts [--runs N]`: what one brv call costs, cold and
 * warm, through the provider's runner (`BrvCli`), against the fake brv and — when
 * HERMES_MEMORY_REAL_BRV points at a real brv (`pnpm --filter @hermes-memory/byterover test:real`
 * installs one) — the real byterover-cli, offline (temp HOME and data dir, loopback service URLs,
 * the OpenAI-compatible fake as its LLM). Cold: the first call of each command in a fresh project
 * (the real CLI's daemon is already up: `brv providers connect` started it). Warm: the calls after
 * it. Printed as a table.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadModule } from '../packages';
import { ms, table } from '../report/markdown';
import { summarize } from '../stats';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '20' } } });
const runs = Number(values.runs);

const { BrvCli } = await loadModule('@hermes-memory/byterover', () => import('@hermes-memory/byterover'));
const testing = await loadModule(
  '@hermes-memory/byterover/testing',
  () => import('@hermes-memory/byterover/testing'),
);

function now(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

const COMMANDS = [
  ['status', undefined],
  ['search', 'jwt tokens expire'],
  ['query', 'How long do JWT access tokens last?'],
  ['curate', 'The user prefers green tea in the morning.'],
] as const;

async function measure(label: string, brvPath: string, env: Record<string, string | undefined>) {
  const rows: string[][] = [];
  const project = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hm-bench-brv-')));
  try {
    testing.writeContextDoc(project, 'auth/jwt.md', 'JWT tokens', 'JWT access tokens expire after 24 hours.');
    const cli = new BrvCli({ brvPath, env, cwd: project });
    for (const [command, text] of COMMANDS) {
      const times: number[] = [];
      let failures = 0;
      for (let i = 0; i <= runs; i++) {
        // Vary the question so brv's answer cache does not serve the warm queries.
        const t = command === 'query' && i > 0 ? `${text} (${i})` : text;
        const t0 = now();
        const outcome = await cli.run(command, t, { timeoutMs: 300_000 });
        times.push(now() - t0);
        if (!outcome.ok) failures += 1;
      }
      const warm = summarize(times.slice(1));
      rows.push([
        label,
        command,
        ms(times[0]!),
        String(warm.n),
        ms(warm.p50),
        ms(warm.p99),
        ms(warm.max),
        String(failures),
      ]);
      process.stderr.write(`byterover-calls: ${label} ${command} done\n`);
    }
  } finally {
    fs.rmSync(project, { recursive: true, force: true });
  }
  return rows;
}

const rows: string[][] = [];
const fake = await testing.startFakeBrv();
try {
  rows.push(...(await measure('fake brv', fake.path, { PATH: process.env.PATH, HOME: os.tmpdir() })));
} finally {
  await fake.close();
}
const realBrv = process.env.HERMES_MEMORY_REAL_BRV;
if (realBrv && fs.existsSync(realBrv)) {
  const real = await testing.startRealBrvEnvironment({ brvPath: realBrv });
  try {
    const connected = await real.connectLlm();
    if (!connected.stdout.includes('"success":true'))
      throw new Error(`brv providers connect failed: ${connected.stdout}`);
    rows.push(...(await measure('real brv 3.14.0', realBrv, real.env)));
  } finally {
    await real.stop();
  }
} else
  process.stderr.write('byterover-calls: HERMES_MEMORY_REAL_BRV not set, the real CLI is not measured\n');

console.log(
  `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}\n`,
);
console.log(
  table(['brv', 'command', 'cold', 'warm runs', 'warm p50', 'warm p99', 'warm max', 'failed'], rows),
);
