import fs from 'node:fs';
import path from 'node:path';
import type { MemoryProvider } from '@hermes-memory/core';
import { runTsChild } from '../child';
import { loadPackage } from '../packages';
import { initContext, LOCAL_PROVIDERS, loadProviderFactory, tempHome } from '../providers';
import { ms, table, verdict } from '../report/markdown';
import type { SuiteContext, SuiteResult } from '../report/suite';
import { barChart } from '../report/svg';
import { round, type Summary, summarize, timeRuns } from '../stats';
import { loadMemoryManagerClass, type MemoryManagerLike } from './manager-shape';
import { QUERIES } from './queries';

export interface LatencyRow {
  step: string;
  setup: string;
  summary: Summary;
  /** The reference's budget (Hermes latency table), ms. */
  referenceMs?: number;
  /** This project's target, ms. */
  targetMs?: number;
}

export interface LatencyData {
  rows: LatencyRow[];
  model2vec: Record<string, unknown> | null;
  unavailable: Array<{ part: string; reason: string }>;
}

/** The reference's steady-state latency table (seeds: "A rough latency budget at steady state"). */
export const REFERENCE_BUDGETS = [
  { phase: 'system_prompt_block() (all providers)', budget: '< 5 ms' },
  { phase: 'prefetch_all() warm', budget: '< 50 ms' },
  { phase: 'prefetch_all() cold (first turn)', budget: 'up to 3–8 s' },
  { phase: 'handle_tool_call() for builtin', budget: '< 10 ms' },
  { phase: 'handle_tool_call() for cloud provider', budget: '100 ms – 2 s' },
  { phase: 'sync_all()', budget: '< 5 ms' },
  { phase: 'queue_prefetch_all()', budget: '< 5 ms' },
];

function fact(i: number): string {
  const topics = [
    'prefers dark mode',
    'deploys with docker compose',
    'uses pnpm workspaces',
    'writes tests with vitest',
    'lives in Lisbon',
    'runs Postgres 16',
  ];
  return `Project note ${i}: the user ${topics[i % topics.length]} (entry ${i})`;
}

/** A tool result must be a committed success, or the timing would measure a rejection. */
function expectOk(result: string, what: string): void {
  const parsed = JSON.parse(result) as Record<string, unknown>;
  if (parsed['success'] === false || typeof parsed['error'] === 'string') {
    throw new Error(`${what} failed during the latency run: ${result.slice(0, 200)}`);
  }
}

function mustSucceed(result: { success: boolean }, what: string): void {
  if (!result.success) {
    throw new Error(
      `MemoryStore.${what} failed during the latency run: ${JSON.stringify(result).slice(0, 200)}`,
    );
  }
}

interface Stack {
  manager: MemoryManagerLike;
  names: string[];
  cleanup: () => Promise<void>;
}

async function buildStack(withHolographic: boolean, seedFacts: number): Promise<Stack> {
  const Manager = await loadMemoryManagerClass();
  const home = tempHome('hm-bench-lat-');
  const manager = new Manager({});
  const names: string[] = [];
  for (const entry of LOCAL_PROVIDERS) {
    if (!entry.lifecycle || (entry.name === 'holographic' && !withHolographic)) continue;
    const provider: MemoryProvider = (await loadProviderFactory(entry))({});
    manager.addProvider(provider);
    names.push(entry.name);
  }
  await manager.initializeAll('bench-session', initContext(home.home));
  for (let i = 0; i < seedFacts; i++) {
    if (i < 15)
      expectOk(
        await manager.handleToolCall('memory', { action: 'add', target: 'memory', content: fact(i) }),
        'seed memory',
      );
    if (withHolographic)
      expectOk(await manager.handleToolCall('fact_store', { action: 'add', content: fact(i) }), 'seed fact');
  }
  for (let i = 0; i < 20; i++)
    manager.syncAll(`user turn ${i}: ${QUERIES[i % QUERIES.length]}`, `assistant turn ${i}: noted.`);
  await manager.flushPending(30_000);
  return {
    manager,
    names,
    cleanup: async () => {
      await manager.shutdownAll();
      home.cleanup();
    },
  };
}

async function lifecycle(
  data: LatencyData,
  withHolographic: boolean,
  runs: number,
  log: (m: string) => void,
): Promise<void> {
  const label = withHolographic ? 'builtin + holographic' : 'builtin';
  log(`latency: lifecycle (${label})`);
  // Cold prefetch: the first prefetchAll of a freshly initialised manager.
  const cold: number[] = [];
  for (let i = 0; i < Math.max(5, Math.floor(runs / 50)); i++) {
    const s = await buildStack(withHolographic, 10);
    try {
      const t = await timeRuns(1, () => s.manager.prefetchAll(QUERIES[i % QUERIES.length]!));
      cold.push(...t);
    } finally {
      await s.cleanup();
    }
  }
  const s = await buildStack(withHolographic, 100);
  try {
    const m = s.manager;
    data.rows.push({
      step: 'system prompt block (buildSystemPrompt)',
      setup: label,
      summary: summarize(await timeRuns(runs, () => m.buildSystemPrompt(), 20)),
      referenceMs: 5,
    });
    const warm: number[] = [];
    for (let i = 0; i < runs; i++) {
      const q = QUERIES[i % QUERIES.length]!;
      m.queuePrefetchAll(q);
      await m.flushPending(10_000);
      warm.push(...(await timeRuns(1, () => m.prefetchAll(q))));
    }
    data.rows.push({ step: 'prefetchAll warm', setup: label, summary: summarize(warm), referenceMs: 50 });
    data.rows.push({
      step: 'prefetchAll cold (first turn)',
      setup: label,
      summary: summarize(cold),
      referenceMs: 3000,
    });
    data.rows.push({
      step: 'syncAll (returns at once)',
      setup: label,
      summary: summarize(await timeRuns(runs, (i) => m.syncAll(`user says ${i}`, `assistant answers ${i}`))),
      referenceMs: 5,
    });
    await m.flushPending(60_000);
    const drained = await timeRuns(Math.min(runs, 200), async (i) => {
      m.syncAll(`user says again ${i}`, `assistant answers again ${i}`);
      await m.flushPending(10_000);
    });
    data.rows.push({ step: 'syncAll + background write drained', setup: label, summary: summarize(drained) });
    data.rows.push({
      step: 'queuePrefetchAll (returns at once)',
      setup: label,
      summary: summarize(await timeRuns(runs, (i) => m.queuePrefetchAll(QUERIES[i % QUERIES.length]!))),
      referenceMs: 5,
    });
    await m.flushPending(60_000);
    const tools = m.getAllToolNames();
    // Timed add + untimed remove keeps USER.md at a steady size, so every timed call is a
    // committed write rather than a "memory full" rejection.
    const adds: number[] = [];
    for (let i = 0; i < Math.min(runs, 300); i++) {
      const content = `tool add number ${i} for the latency run`;
      adds.push(
        ...(await timeRuns(1, async () =>
          expectOk(
            await m.handleToolCall('memory', { action: 'add', target: 'user', content }),
            'memory add',
          ),
        )),
      );
      expectOk(
        await m.handleToolCall('memory', { action: 'remove', target: 'user', old_text: content }),
        'memory remove',
      );
    }
    data.rows.push({
      step: 'tool: memory add (committed)',
      setup: label,
      summary: summarize(adds),
      referenceMs: 10,
    });
    if (tools.includes('session_search')) {
      data.rows.push({
        step: 'tool: session_search',
        setup: label,
        summary: summarize(
          await timeRuns(runs, (i) =>
            m.handleToolCall('session_search', { query: i % 2 ? 'deploy staging' : 'database migration' }),
          ),
        ),
        referenceMs: 10,
      });
    }
    if (tools.includes('fact_store')) {
      data.rows.push({
        step: 'tool: fact_store search',
        setup: label,
        summary: summarize(
          await timeRuns(runs, async (i) =>
            expectOk(
              await m.handleToolCall('fact_store', { action: 'search', query: QUERIES[i % QUERIES.length] }),
              'fact_store search',
            ),
          ),
        ),
        referenceMs: 10,
      });
      data.rows.push({
        step: 'tool: fact_store add',
        setup: label,
        summary: summarize(
          await timeRuns(Math.min(runs, 300), async (i) =>
            expectOk(
              await m.handleToolCall('fact_store', {
                action: 'add',
                content: `bench fact number ${i} about latency`,
              }),
              'fact_store add',
            ),
          ),
        ),
        referenceMs: 10,
      });
    }
  } finally {
    await s.cleanup();
  }
}

async function memoryStoreWrites(data: LatencyData, runs: number): Promise<void> {
  const home = tempHome('hm-bench-memfile-');
  try {
    const mod = await loadPackage('@hermes-memory/builtin');
    const Ctor = mod['MemoryStore'] as new (
      o: Record<string, unknown>,
    ) => {
      load(): unknown;
      add(t: string, c: string): Promise<{ success: boolean }>;
      replace(t: string, o: string, n: string): Promise<{ success: boolean }>;
      remove(t: string, o: string): Promise<{ success: boolean }>;
    };
    if (typeof Ctor !== 'function') throw new Error('@hermes-memory/builtin does not export MemoryStore');
    const direct = new Ctor({ memoryDir: path.join(home.home, 'memories'), memoryCharLimit: 50_000 });
    direct.load();
    for (let k = 0; k < 15; k++) mustSucceed(await direct.add('memory', fact(k)), 'add');
    // Steady state (15 entries, like a real MEMORY.md): timed add + untimed remove; timed replace there and back.
    const adds: number[] = [];
    for (let i = 0; i < runs; i++) {
      const content = `latency entry number ${i} with some words`;
      adds.push(...(await timeRuns(1, async () => mustSucceed(await direct.add('memory', content), 'add'))));
      mustSucceed(await direct.remove('memory', content), 'remove');
    }
    const replaces = await timeRuns(runs, async (i) => {
      const [from, to] =
        i % 2 === 0 ? ['(entry 3)', '(entry 3, revised)'] : ['(entry 3, revised)', '(entry 3)'];
      mustSucceed(await direct.replace('memory', from, fact(3).replace('(entry 3)', to)), 'replace');
    });
    data.rows.push({
      step: 'MemoryStore.add (lock + atomic write + fsync)',
      setup: 'builtin MEMORY.md, 15 entries',
      summary: summarize(adds),
      targetMs: 2,
    });
    data.rows.push({
      step: 'MemoryStore.replace (lock + atomic write + fsync)',
      setup: 'builtin MEMORY.md, 15 entries',
      summary: summarize(replaces),
      targetMs: 2,
    });
  } finally {
    home.cleanup();
  }
}

/**
 * The disk's own floor for a durable small-file replace (write temp + fsync + rename + fsync dir),
 * with node:fs only: it tells whether a MemoryStore number is the code or the machine's storage.
 */
async function diskFloor(data: LatencyData, runs: number): Promise<void> {
  const home = tempHome('hm-bench-fsync-');
  try {
    const file = path.join(home.home, 'memories', 'FLOOR.md');
    const body = Array.from({ length: 15 }, (_, k) => fact(k)).join('\n§\n');
    const times = await timeRuns(runs, (i) => {
      const tmp = `${file}.${i}.tmp`;
      const fd = fs.openSync(tmp, 'w', 0o600);
      fs.writeSync(fd, `${body}\n${i}`);
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      fs.renameSync(tmp, file);
      const dir = fs.openSync(path.dirname(file), 'r');
      fs.fsyncSync(dir);
      fs.closeSync(dir);
    });
    data.rows.push({
      step: 'disk floor: write + fsync + rename + fsync(dir), node:fs only',
      setup: 'same temp filesystem',
      summary: summarize(times),
    });
  } finally {
    home.cleanup();
  }
}

async function systemPromptBlock(data: LatencyData, runs: number): Promise<void> {
  const entry = LOCAL_PROVIDERS.find((p) => p.name === 'builtin')!;
  const home = tempHome('hm-bench-spb-');
  const provider = (await loadProviderFactory(entry))({});
  try {
    await provider.initialize('spb', initContext(home.home));
    for (let i = 0; i < 15; i++)
      await provider.handleToolCall('memory', { action: 'add', target: 'memory', content: fact(i) });
    data.rows.push({
      step: 'builtin systemPromptBlock()',
      setup: 'builtin, 15 entries',
      summary: summarize(await timeRuns(runs, () => provider.systemPromptBlock(), 20)),
      targetMs: 0.5,
      referenceMs: 5,
    });
  } finally {
    await provider.shutdown();
    home.cleanup();
  }
}

export async function runLatencySuite(ctx: SuiteContext): Promise<SuiteResult> {
  const started = Date.now();
  const runs = ctx.full ? 5_000 : 1_000;
  const data: LatencyData = { rows: [], model2vec: null, unavailable: [] };
  const attempt = async (part: string, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      ctx.log(`latency: ${part} not measured: ${reason}`);
      data.unavailable.push({ part, reason });
    }
  };
  await attempt('lifecycle (builtin)', () => lifecycle(data, false, runs, ctx.log));
  await attempt('lifecycle (builtin + holographic)', () => lifecycle(data, true, runs, ctx.log));
  await attempt('memory tool writes', () => memoryStoreWrites(data, Math.min(runs, 500)));
  await attempt('disk floor', () => diskFloor(data, Math.min(runs, 500)));
  await attempt('system prompt block', () => systemPromptBlock(data, runs));
  await attempt('model2vec', async () => {
    ctx.log('latency: model2vec throughput (child process)');
    const res = await runTsChild('src/latency/model2vec-worker.ts', [], 300_000);
    const parsed = JSON.parse(res.stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
    if (parsed['ok'] !== true) throw new Error(String(parsed['error'] ?? res.stderr.slice(-300)));
    data.model2vec = parsed;
  });
  return {
    suite: 'latency',
    title: 'Latency',
    provenance: ctx.provenance,
    seconds: (Date.now() - started) / 1000,
    data,
    markdown: renderLatency(data, runs),
    headline: latencyHeadline(data),
    svgs: renderLatencySvgs(data),
  };
}

function renderLatency(d: LatencyData, runs: number): string {
  const lines = ['## Latency', ''];
  lines.push(
    `Each step through the real \`MemoryManager\` (\`@hermes-memory/core\`) with the builtin provider (and holographic as the ` +
      `external provider where available), on a fresh HERMES_HOME in a temp dir, in-process, up to ${runs.toLocaleString('en-US')} runs per step ` +
      '(warm-up runs excluded). "Warm prefetch" follows a `queuePrefetchAll` + `flushPending`; "cold" is the first ' +
      "prefetch of a freshly initialised manager. Budgets: the reference's (Hermes) and this project's targets.",
    '',
    table(
      ['#', 'step', 'setup', 'runs', 'p50', 'p95', 'p99', 'reference budget', 'our target', ''],
      d.rows.map((r, i) => {
        const budget = r.targetMs ?? r.referenceMs;
        return [
          i + 1,
          r.step,
          r.setup,
          r.summary.n,
          ms(r.summary.p50),
          ms(r.summary.p95),
          ms(r.summary.p99),
          r.referenceMs === undefined
            ? '–'
            : r.referenceMs >= 1000
              ? `≤ ${r.referenceMs / 1000}–8 s`
              : `< ${r.referenceMs} ms`,
          r.targetMs === undefined ? '–' : `p50 < ${r.targetMs} ms`,
          budget === undefined
            ? ''
            : verdict(r.targetMs !== undefined ? r.summary.p50 : r.summary.p95, budget),
        ];
      }),
    ),
    '',
    'Verdict: against our target on p50 where one is set, else against the reference budget on p95.',
    '',
  );
  if (d.rows.length > 0) lines.push('![latency p50 / p95 per step](latency-steps.svg)', '');
  lines.push(
    "The reference's steady-state budget table, for comparison:",
    '',
    table(
      ['phase (reference)', 'typical latency'],
      REFERENCE_BUDGETS.map((b) => [b.phase, b.budget]),
    ),
    '',
  );
  if (d.model2vec) {
    const m = d.model2vec;
    const sps = Number(m['sentencesPerSecond']);
    lines.push(
      '### Model2Vec (bundled potion-base-2M)',
      '',
      table(
        ['measure', 'value', 'target'],
        [
          [
            'throughput, short sentences, one core (best of 3 × 20,000)',
            `${sps.toLocaleString('en-US')} sentences/s`,
            `≥ 20,000 /s ${sps >= 20_000 ? '✅' : '❌'}`,
          ],
          ['mean sentence length', `${m['meanChars']} chars`, '–'],
          ['single-text embed p50', ms(Number(m['singleTextP50Ms'])), '–'],
          ['model load (cold process, incl. first embed)', ms(Number(m['loadMs'])), '–'],
          ['model memory (RSS growth on load)', `${m['modelRssMiB']} MiB`, '–'],
          ['embedder', `${m['embedder']} (${m['dimensions']} dims)`, '–'],
        ],
      ),
      '',
    );
  }
  if (d.unavailable.length > 0) {
    lines.push('Not measured:', '');
    for (const u of d.unavailable) lines.push(`- **${u.part}**: ${u.reason}`);
    lines.push('');
  }
  lines.push(
    'session_search over 100,000 stored messages and holographic search at 10k / 100k facts are in **Scale curves** below.',
    '',
  );
  return lines.join('\n');
}

function renderLatencySvgs(d: LatencyData): Record<string, string> {
  if (d.rows.length === 0) return {};
  return {
    'latency-steps.svg': barChart(
      d.rows.map((_r, i) => `${i + 1}`),
      [
        { name: 'p50 (ms)', values: d.rows.map((r) => round(r.summary.p50, 4)) },
        { name: 'p95 (ms)', values: d.rows.map((r) => round(r.summary.p95, 4)) },
      ],
      {
        title: 'Latency per step, log scale (numbers = # in the table)',
        yLabel: 'ms',
        width: 720,
        logY: true,
      },
    ),
  };
}

function latencyHeadline(d: LatencyData): string[] {
  const out: string[] = [];
  const pick = (step: string, setup: string) =>
    d.rows.find((r) => r.step.startsWith(step) && r.setup.startsWith(setup));
  const parts: string[] = [];
  for (const [step, label] of [
    ['system prompt block', 'system prompt block'],
    ['prefetchAll warm', 'warm prefetch'],
    ['syncAll (returns', 'sync'],
    ['tool: memory add', 'memory tool add'],
    ['tool: session_search', 'session_search tool'],
    ['tool: fact_store search', 'fact_store search'],
  ] as const) {
    const r = pick(step, 'builtin + holographic') ?? pick(step, 'builtin');
    if (r) parts.push(`${label} ${ms(r.summary.p50)} / ${ms(r.summary.p95)}`);
  }
  if (parts.length > 0) out.push(`Lifecycle p50 / p95 through MemoryManager: ${parts.join('; ')}.`);
  const add = d.rows.find((r) => r.step.startsWith('MemoryStore.add'));
  const floor = d.rows.find((r) => r.step.startsWith('disk floor'));
  if (add) {
    out.push(
      `MEMORY.md add with lock + fsync p50 ${ms(add.summary.p50)} (target < 2 ms)` +
        (floor ? `; the disk's own write+fsync+rename floor is ${ms(floor.summary.p50)}.` : '.'),
    );
  }
  if (d.model2vec) {
    out.push(
      `Model2Vec: ${Number(d.model2vec['sentencesPerSecond']).toLocaleString('en-US')} short sentences/s on one core (target ≥ 20,000), cold load ${ms(Number(d.model2vec['loadMs']))}, ${d.model2vec['modelRssMiB']} MiB.`,
    );
  }
  return out;
}
