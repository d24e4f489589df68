/**
 * `bench [suite...] [--full] [--retriever a,b] [--out dir] [--audit] [--conversation conv-30]`
 *
 * Runs the selected suites (all by default), writes `<out>/<suite>.json` + SVGs, then regenerates
 * `<out>/README.md` from every suite JSON present. Default out dir: `docs/benchmarks/` at the repo root.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { defaultOutDir } from './paths';
import { provenance } from './report/machine';
import type { SuiteContext, SuiteResult } from './report/suite';
import { SUITE_ORDER, writeReadme, writeSuite } from './report/write';

type SuiteName = (typeof SUITE_ORDER)[number];

const SUITES: Record<SuiteName, (ctx: SuiteContext, flags: Flags) => Promise<SuiteResult>> = {
  locomo: async (ctx, f) =>
    (await import('./locomo/suite')).runLocomoSuite(ctx, {
      auditAll: f.audit,
      conversations: f.conversations,
    }),
  live: async (ctx) => (await import('./precision/live-suite')).runLiveSuite(ctx),
  latency: async (ctx) => (await import('./latency/suite')).runLatencySuite(ctx),
  remote: async (ctx, f) => (await import('./remote/suite')).runRemoteSuite(ctx, f.providers),
  scale: async (ctx) => (await import('./scale/suite')).runScaleSuite(ctx),
  robustness: async (ctx) => (await import('./robustness/suite')).runRobustnessSuite(ctx),
  scanner: async (ctx) => (await import('./scanner/suite')).runScannerSuite(ctx),
  'mem0-oss': async (ctx, f) =>
    (await import('./mem0-oss/suite')).runMem0OssSuite(ctx, {
      ...(f.conversations ? { conversations: f.conversations } : {}),
    }),
  longmemeval: async (ctx, f) =>
    (await import('./longmemeval/suite')).runLongMemEvalSuite(ctx, f.longmemeval),
};

interface Flags {
  audit: boolean;
  conversations: string[] | undefined;
  longmemeval: string | undefined;
  providers: string[] | undefined;
}

const USAGE = `usage: bench [${SUITE_ORDER.join('|')}...] [--full] [--retriever a,b] [--out dir] [--audit]
             [--conversation conv-30,...] [--longmemeval file.json] [--provider id,...]`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      full: { type: 'boolean', default: false },
      retriever: { type: 'string' },
      out: { type: 'string' },
      audit: { type: 'boolean', default: false },
      conversation: { type: 'string' },
      longmemeval: { type: 'string' },
      provider: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const unknown = positionals.filter((p) => !(SUITE_ORDER as readonly string[]).includes(p));
  if (unknown.length > 0) {
    process.stderr.write(`bench: unknown suite(s) ${unknown.join(', ')}\n${USAGE}\n`);
    return 2;
  }
  // mem0-oss (about 20 minutes on 2 cores) runs only when named.
  const suites: SuiteName[] =
    positionals.length > 0 ? (positionals as SuiteName[]) : SUITE_ORDER.filter((s) => s !== 'mem0-oss');
  const list = (v: string | undefined) =>
    v
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  const outDir = path.resolve(values.out ?? defaultOutDir());
  const command = ['pnpm bench', ...argv].join(' ');
  const ctx: SuiteContext = {
    full: values.full === true,
    retrievers: list(values.retriever) ?? null,
    outDir,
    command,
    provenance: provenance(command),
    log: (m) => process.stderr.write(`[bench] ${m}\n`),
  };
  const flags: Flags = {
    audit: values.audit === true,
    conversations: list(values.conversation),
    longmemeval: values.longmemeval,
    providers: list(values.provider),
  };
  let failures = 0;
  for (const name of suites) {
    const t0 = Date.now();
    ctx.log(`suite ${name}: start`);
    ctx.provenance = provenance(command); // per suite: its own start time and load average
    try {
      const result = await SUITES[name](ctx, flags);
      writeSuite(outDir, result);
      ctx.log(`suite ${name}: done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    } catch (err) {
      failures++;
      ctx.log(`suite ${name}: FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    }
  }
  writeReadme(outDir);
  ctx.log(`report written to ${path.join(outDir, 'README.md')}`);
  return failures > 0 ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 2;
  },
);
