/**
 * Full-disk and file-size-limit runs: every local writer (MEMORY.md add / replace, config.yaml,
 * .env, the prefetch spill, state.db, memory_store.db) makes one write in a child process on a
 * filled tmpfs or under `ulimit -f` (testkit's `runUnderWriteLimit`), at several budgets so the
 * failure lands at different points of the write. What the API answered is compared with what is on
 * disk afterwards: a write that reported success must be there in full, one that failed must have
 * left the previous state untouched, and nothing may be torn.
 */
import path from 'node:path';
import { PACKAGE_DIR } from '../child';
import { loadPackage } from '../packages';
import { table } from '../report/markdown';
import { LIMITED_TARGETS, type LimitedTarget } from './limited-targets';

type Kind = 'full-disk' | 'file-size';

export interface LimitedRun {
  target: LimitedTarget;
  kind: Kind;
  /** Set when no tmpfs could be mounted and the file-size limit stood in for the full disk. */
  fellBackFrom?: 'full-disk';
  budget: string;
  reported: 'success' | 'error' | 'no answer';
  onDisk: 'old' | 'new' | 'other' | 'unknown';
  /** committed / kept are correct; lost (success, not on disk) and torn (neither state) are data loss. */
  verdict: 'committed' | 'kept' | 'lost' | 'torn' | 'harness failure';
  /** A failure whose message names the cause (full disk, size limit, short write). */
  clearError: boolean;
  leftovers: number;
  error?: string;
}

export interface LimitedDiskData {
  runs: LimitedRun[];
  unavailable: string[];
}

const KIB = 1024;
const DATABASES: readonly LimitedTarget[] = ['session-db', 'facts-db'];

/** Bytes left free on the filled tmpfs, or the file-size limit, per target family. */
function budgets(target: LimitedTarget, kind: Kind, full: boolean): number[] {
  const db = DATABASES.includes(target);
  // Reading a WAL database needs SQLite's 32 KiB shared-memory file, so database budgets start above it.
  const list =
    kind === 'full-disk'
      ? db
        ? [48 * KIB, 96 * KIB, 256 * KIB]
        : [0, 4 * KIB, 8 * KIB, 16 * KIB]
      : db
        ? [48 * KIB, 96 * KIB, 256 * KIB]
        : [1 * KIB, 2 * KIB, 4 * KIB, 8 * KIB];
  return full ? list : [list[0]!, list[list.length - 1]!];
}

const CLEAR_ERROR =
  /ENOSPC|EFBIG|SHORT_WRITE|no space left|disk quota|file-size limit|database or disk is full/i;

export async function runLimitedDiskRuns(
  full: boolean,
  log: (line: string) => void,
): Promise<LimitedDiskData> {
  const testkit = await loadPackage('@hermes-memory/testkit');
  const run = testkit['runUnderWriteLimit'] as
    | ((
        kind: Kind,
        options: Record<string, unknown>,
      ) => Promise<{
        kind: Kind;
        fellBackFrom?: 'full-disk';
        phases: Record<string, Record<string, unknown>>;
        stderr: string;
      }>)
    | undefined;
  if (typeof run !== 'function')
    return { runs: [], unavailable: ['@hermes-memory/testkit does not export runUnderWriteLimit'] };
  const data: LimitedDiskData = { runs: [], unavailable: [] };
  for (const kind of ['full-disk', 'file-size'] as const) {
    for (const target of LIMITED_TARGETS) {
      for (const bytes of budgets(target, kind, full)) {
        log(`robustness: ${target} under ${kind} (${bytes / KIB} KiB)`);
        const r = await run(kind, {
          script: path.join(PACKAGE_DIR, 'src/robustness/limited-writer.ts'),
          args: [target],
          nodeArgs: ['--import', 'tsx'],
          cwd: PACKAGE_DIR,
          bytes: kind === 'full-disk' ? 16 * KIB * KIB : bytes,
          slackBytes: bytes,
          timeoutMs: 120_000,
        });
        data.runs.push(judge(target, kind, bytes, r));
      }
    }
  }
  return data;
}

function judge(
  target: LimitedTarget,
  kind: Kind,
  bytes: number,
  r: {
    kind: Kind;
    fellBackFrom?: 'full-disk';
    phases: Record<string, Record<string, unknown>>;
    stderr: string;
  },
): LimitedRun {
  const act = r.phases.act;
  const check = r.phases.check;
  const budget = r.kind === 'full-disk' ? `${bytes / KIB} KiB free` : `${bytes / KIB} KiB limit`;
  const base = { target, kind, budget, ...(r.fellBackFrom ? { fellBackFrom: r.fellBackFrom } : {}) };
  if (!r.phases.setup || !check) {
    const why = r.stderr.trim().split('\n').pop() ?? 'no output';
    return {
      ...base,
      reported: 'no answer',
      onDisk: 'unknown',
      verdict: 'harness failure',
      clearError: false,
      leftovers: 0,
      error: why,
    };
  }
  const reported = !act ? 'no answer' : act.success === true ? 'success' : 'error';
  const onDisk = check.state as LimitedRun['onDisk'];
  const error = typeof act?.error === 'string' ? act.error : undefined;
  const verdict: LimitedRun['verdict'] =
    reported === 'success' ? (onDisk === 'new' ? 'committed' : 'lost') : onDisk === 'old' ? 'kept' : 'torn';
  return {
    ...base,
    reported,
    onDisk,
    verdict,
    clearError: reported === 'error' && CLEAR_ERROR.test(error ?? ''),
    leftovers: Array.isArray(check.leftovers) ? check.leftovers.length : 0,
    ...(error ? { error } : {}),
  };
}

export function renderLimitedDisk(d: LimitedDiskData): string[] {
  const lines = [
    '### Full disk and file-size limit (lost and torn: must be 0)',
    '',
    'Each local writer makes one write in a child process on a filled tmpfs (a private mount, `N KiB free`) or ' +
      'under `ulimit -f` (`N KiB limit`), via testkit `runUnderWriteLimit`. The answer is compared with the disk ' +
      'afterwards: **committed** (success, new state complete), **kept** (error, previous state untouched), ' +
      '**lost** (success, but not on disk in full) or **torn** (neither state). A clear error names the cause.',
    '',
  ];
  if (d.runs.some((r) => r.fellBackFrom))
    lines.push(
      'No tmpfs could be mounted on this machine: the full-disk rows ran under the file-size limit.',
      '',
    );
  lines.push(
    table(
      [
        'writer',
        'limit',
        'budget',
        'answer',
        'on disk',
        'verdict',
        'clear error',
        'temp files left',
        'error',
      ],
      d.runs.map((r) => [
        r.target,
        r.fellBackFrom ? `${r.kind} (for full-disk)` : r.kind,
        r.budget,
        r.reported,
        r.onDisk,
        r.verdict === 'lost' || r.verdict === 'torn' ? `**${r.verdict.toUpperCase()}**` : r.verdict,
        r.reported === 'error' ? (r.clearError ? 'yes' : 'no') : '–',
        r.leftovers,
        (r.error ?? '–').replace(/\s+/g, ' ').slice(0, 110),
      ]),
    ),
    '',
  );
  for (const u of d.unavailable) lines.push(`- limited disk: ${u}`);
  return lines;
}

export function limitedDiskHeadline(d: LimitedDiskData): string[] {
  if (d.runs.length === 0) return [];
  const count = (v: LimitedRun['verdict']) => d.runs.filter((r) => r.verdict === v).length;
  const failed = d.runs.filter((r) => r.reported === 'error');
  return [
    `Full disk / file-size limit: ${d.runs.length} writes over ${LIMITED_TARGETS.length} writers, ` +
      `lost ${count('lost')}, torn ${count('torn')}, committed ${count('committed')}, kept ${count('kept')}; ` +
      `${failed.filter((r) => r.clearError).length} / ${failed.length} failures named the cause.`,
  ];
}
