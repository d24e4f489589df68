import { ms, table } from '../report/markdown';
import type { SuiteContext, SuiteResult } from '../report/suite';
import {
  FENCE_ESCAPE_CORPUS,
  type FenceEscapeRow,
  REDOS_PASSES,
  REDOS_SHAPES,
  type RedosRow,
  runFenceEscapeCorpus,
  runRedosShapes,
} from './adversarial';
import { benchFaultServer, FAULT_KINDS, type FaultOutcome, runFaultScenario } from './faults';
import { type FuzzResult, runToolFuzz } from './fuzz';
import {
  type LimitedDiskData,
  limitedDiskHeadline,
  renderLimitedDisk,
  runLimitedDiskRuns,
} from './limited-disk';
import {
  type ConcurrencyResult,
  type KillCycleResult,
  runConcurrentWriters,
  runKillCycles,
} from './processes';
import { STORE_KINDS } from './stores';
import { loadFaultTargets, loadTestkitFaultServer } from './targets';

export interface RobustnessData {
  concurrency: ConcurrencyResult[];
  killCycles: KillCycleResult[];
  fuzz: FuzzResult;
  faults: FaultOutcome[];
  limitedDisk?: LimitedDiskData;
  fenceEscape?: FenceEscapeRow[];
  redos?: RedosRow[];
  unavailable: Array<{ part: string; reason: string }>;
}

/** ReDoS inputs are timed at this length (the write scanner's whole window) and at a quarter of it. */
const REDOS_CHARS = 65_536;

export async function runRobustnessSuite(ctx: SuiteContext): Promise<SuiteResult> {
  const started = Date.now();
  const processes = ctx.full ? 8 : 4;
  const writes = ctx.full ? 300 : 60;
  const cycles = ctx.full ? 40 : 12;
  const fuzzRuns = ctx.full ? 2_000 : 300;
  const data: RobustnessData = {
    concurrency: [],
    killCycles: [],
    fuzz: { tools: [], unavailable: [] },
    faults: [],
    unavailable: [],
  };

  for (const kind of STORE_KINDS) {
    try {
      ctx.log(`robustness: ${processes} concurrent writers on ${kind}`);
      data.concurrency.push(await runConcurrentWriters(kind, processes, writes));
      ctx.log(`robustness: ${cycles} SIGKILL cycles on ${kind}`);
      data.killCycles.push(await runKillCycles(kind, cycles));
    } catch (err) {
      data.unavailable.push({ part: kind, reason: err instanceof Error ? err.message : String(err) });
    }
  }

  data.limitedDisk = await runLimitedDiskRuns(ctx.full, ctx.log);

  ctx.log(
    `robustness: fence-escape corpus (${FENCE_ESCAPE_CORPUS.length} texts + ${REDOS_SHAPES.length} shapes)`,
  );
  data.fenceEscape = await runFenceEscapeCorpus(
    REDOS_SHAPES.map((shape) => ({ name: `shape: ${shape.name}`, text: shape.make(4096) })),
  );
  ctx.log(`robustness: ReDoS shapes (${REDOS_SHAPES.length} inputs × ${REDOS_PASSES.length} passes)`);
  data.redos = runRedosShapes(REDOS_CHARS, ctx.full ? 7 : 5);

  ctx.log(`robustness: fuzzing tools (${fuzzRuns} runs per tool)`);
  data.fuzz = await runToolFuzz(fuzzRuns);

  const { targets, unavailable } = await loadFaultTargets();
  for (const u of unavailable) data.unavailable.push({ part: `faults: ${u.client}`, reason: u.reason });
  const testkit = await loadTestkitFaultServer();
  if (!testkit)
    data.unavailable.push({
      part: 'faults: testkit server',
      reason: 'startFakeOpenAI not available; the bench server ran every fault',
    });
  for (const target of targets) {
    for (const kind of FAULT_KINDS) {
      const server = testkit?.supports(kind) ? testkit : benchFaultServer;
      ctx.log(`robustness: ${target.name} under ${kind} (${server.name})`);
      for (const mode of ['once', 'always'] as const) {
        data.faults.push(
          await runFaultScenario(
            target,
            `${kind} ${mode}`,
            () => server.start(kind, mode),
            15_000,
            server.name,
          ),
        );
      }
    }
  }

  return {
    suite: 'robustness',
    title: 'Robustness',
    provenance: ctx.provenance,
    seconds: (Date.now() - started) / 1000,
    data,
    markdown: renderRobustness(data),
    headline: robustnessHeadline(data),
    svgs: {},
  };
}

function renderRobustness(d: RobustnessData): string {
  const lines = ['## Robustness', ''];
  lines.push(
    '### Concurrent writers (must be 0 lost / torn / duplicated)',
    '',
    'Separate OS processes write self-checksummed items into the same store at once (builtin `MEMORY.md` via ' +
      '`MemoryStore.add` with its file lock and atomic replace; builtin `state.db` via `SessionStore.appendMessage`; holographic `memory_store.db` via `FactStore.add`). ' +
      'Afterwards the store is reopened and compared with every write a process acknowledged.',
    '',
    table(
      [
        'store',
        'processes × writes',
        'acked',
        'found',
        'lost',
        'torn',
        'duplicated',
        'writer failures',
        'seconds',
      ],
      d.concurrency.map((c) => [
        c.store,
        `${c.processes} × ${c.writesPerProcess}`,
        c.expected,
        c.found,
        c.lost,
        c.torn,
        c.duplicated,
        c.writerFailures ? `${c.writerFailures}: ${c.errors[0] ?? ''}` : 0,
        c.seconds,
      ]),
    ),
    '',
    '### SIGKILL during writes (states recovered: must be all)',
    '',
    'A writer process is killed with SIGKILL after a seeded number of acknowledged writes (so the kill lands inside a ' +
      'write), then the store is reopened and checked; the cycle repeats on the same store.',
    '',
    table(
      [
        'store',
        'cycles',
        'recovered',
        'acked writes',
        'lost',
        'torn',
        'duplicated',
        'stored but unacked (allowed)',
        'open failures',
        'writer failures',
      ],
      d.killCycles.map((k) => [
        k.store,
        k.cycles,
        `${k.recovered} / ${k.cycles}`,
        k.acked,
        k.lost,
        k.torn,
        k.duplicated,
        k.unacknowledgedButStored,
        k.openFailures.length ? `${k.openFailures.length}: ${k.openFailures[0]!}` : 0,
        k.writerFailures?.length ? `${k.writerFailures.length}: ${k.writerFailures[0]!}` : 0,
      ]),
    ),
    '',
    ...(d.limitedDisk ? renderLimitedDisk(d.limitedDisk) : []),
    ...renderAdversarial(d),
    '### Malformed and hostile tool arguments (crashes: must be 0)',
    '',
    'fast-check generates schema-shaped objects with hostile values (huge strings, invisible Unicode, FTS5 operators, ' +
      'SQL, path traversal, NaN, wrong types), JSON strings, broken JSON and arbitrary values for every tool of every ' +
      'local provider. A crash is a throw or anything other than a JSON object string.',
    '',
    table(
      ['provider', 'tool', 'runs', 'crashes', 'example'],
      d.fuzz.tools.map((t) => [t.provider, t.tool, t.runs, t.crashes, t.examples[0] ?? '–']),
    ),
    '',
  );
  for (const u of d.fuzz.unavailable) lines.push(`- fuzz: **${u.provider}** not available: ${u.reason}`);
  if (d.fuzz.unavailable.length) lines.push('');
  lines.push(
    '### Fault injection for remote clients',
    '',
    "A loopback OpenAI-compatible server — the testkit's `startFakeOpenAI` where it supports the fault, else the bench's own " +
      '(`src/robustness/faults.ts`, `FaultInjector` / `FaultServerFactory` interfaces) — injects 5xx, 429, ' +
      'timeouts (no answer), connection resets, malformed and truncated bodies — once (a retry should recover) or ' +
      'always (the client must fail with its own error type, never hang). Clients run with a 1 s timeout and 2 retries.',
    '',
  );
  if (d.faults.length > 0) {
    lines.push(
      table(
        ['client', 'scenario', 'server', 'outcome', 'requests', 'time', 'error'],
        d.faults.map((f) => [
          f.client,
          f.scenario,
          f.server ?? 'bench',
          f.outcome,
          f.requests,
          ms(f.ms),
          f.error ?? '–',
        ]),
      ),
      '',
    );
  }
  if (d.unavailable.length > 0) {
    lines.push('Not measured:', '');
    for (const u of d.unavailable) lines.push(`- **${u.part}**: ${u.reason}`);
    lines.push('');
  }
  return lines.join('\n');
}

function robustnessHeadline(d: RobustnessData): string[] {
  const sum = <T>(list: T[], f: (x: T) => number) => list.reduce((a, x) => a + f(x), 0);
  const out: string[] = [];
  if (d.concurrency.length > 0) {
    out.push(
      `Concurrent writers (${d.concurrency.map((c) => c.store).join(', ')}): ` +
        `${sum(d.concurrency, (c) => c.expected)} acknowledged writes, lost ${sum(d.concurrency, (c) => c.lost)}, ` +
        `torn ${sum(d.concurrency, (c) => c.torn)}, duplicated ${sum(d.concurrency, (c) => c.duplicated)}, writer failures ${sum(d.concurrency, (c) => c.writerFailures)}.`,
    );
  }
  if (d.killCycles.length > 0) {
    out.push(
      `SIGKILL during writes: ${sum(d.killCycles, (k) => k.recovered)} / ${sum(d.killCycles, (k) => k.cycles)} states recovered intact.`,
    );
  }
  if (d.limitedDisk) out.push(...limitedDiskHeadline(d.limitedDisk));
  if (d.fenceEscape?.length) {
    const cases = d.fenceEscape[0]!.cases;
    out.push(
      `Fence escape: ${cases} adversarial texts × ${d.fenceEscape.length} paths, ${sum(d.fenceEscape, (r) => r.escapes)} escapes.`,
    );
  }
  if (d.redos?.length) {
    const worst = d.redos.reduce((a, r) => (r.worstMs > a.worstMs ? r : a));
    out.push(
      `ReDoS shapes: ${d.redos.length} inputs of ${d.redos[0]!.chars.toLocaleString('en-US')} chars, worst ${ms(worst.worstMs)} (${worst.worstPass} on ${worst.input}); fence held on ${d.redos.filter((r) => r.fenceHeld).length} / ${d.redos.length}.`,
    );
  }
  if (d.fuzz.tools.length > 0) {
    out.push(
      `Hostile tool arguments: ${sum(d.fuzz.tools, (t) => t.runs).toLocaleString('en-US')} calls over ${d.fuzz.tools.length} tools, ${sum(d.fuzz.tools, (t) => t.crashes)} crashes.`,
    );
  }
  if (d.faults.length > 0) {
    const bad = d.faults.filter((f) => f.outcome === 'hung' || f.outcome === 'foreign-error').length;
    out.push(`Fault injection: ${d.faults.length} scenarios, ${bad} hung or failed with a foreign error.`);
  }
  return out;
}

function renderAdversarial(d: RobustnessData): string[] {
  const lines: string[] = [];
  if (d.fenceEscape?.length) {
    lines.push(
      '### Fence escape (escapes: must be 0)',
      '',
      `${FENCE_ESCAPE_CORPUS.length} texts that try to close, reopen or imitate the \`<memory-context>\` fence or its system note ` +
        '(closers, nested fragments, case and whitespace variants, invisible and tag characters, the note alone, ' +
        'many closers; `src/robustness/adversarial.ts`), plus each ReDoS shape below at 4,096 chars, judged where the ' +
        "model or the user would see them: core's neutraliser, tool answers, the block built from raw recall, a " +
        'manager whose provider returns the text raw from prefetch and from its tool, and the output scrubber on an ' +
        'answer that echoes the block (the prose around it must survive).',
      '',
      table(
        ['path', 'texts', 'escapes', 'example'],
        d.fenceEscape.map((r) => [r.path, r.cases, r.escapes, r.examples[0] ?? '–']),
      ),
      '',
    );
  }
  if (d.redos?.length) {
    lines.push(
      '### ReDoS input shapes (per-input worst time; exponent 1 is linear)',
      '',
      `Each input is a long run of one shape at ${d.redos[0]!.chars.toLocaleString('en-US')} chars, through ` +
        `${REDOS_PASSES.map((p) => `\`${p.name}\``).join(', ')}; the slowest pass is shown with its best-of-n time ` +
        'and its growth exponent (log-log slope of its time over an eighth, a quarter, a half and all of the length; ' +
        'timings of a few ms carry GC noise of ±0.3). "fence held": the neutralised input has no fence markup.',
      '',
      table(
        ['input', 'chars', 'slowest pass', 'time', 'exponent', 'fence held'],
        d.redos.map((r) => [
          r.input,
          r.chars,
          r.worstPass,
          ms(r.worstMs),
          r.exponent,
          r.fenceHeld ? 'yes' : '**no**',
        ]),
      ),
      '',
    );
  }
  return lines;
}
