import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import {
  type AgentContext,
  type InitContext,
  type LogRecord,
  type MemoryProvider,
  type MemoryWriteAction,
  type ShutdownOptions,
  createRecordingLogger,
} from '@hermes-memory/core';
import { tempHermesHome } from '../helpers/temp-home';
import type {
  ConformanceOptions,
  HarnessContext,
  ProviderCapabilities,
  ProviderHarness,
  WritesOn,
} from './types';

/** A failed requirement, with a message that tells the provider author what to fix. */
export class ConformanceFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConformanceFailure';
  }
}

export function fail(message: string): never {
  throw new ConformanceFailure(message);
}

export function ensure(condition: unknown, message: string): asserts condition {
  if (!condition) fail(message);
}

export const DEFAULT_CAPABILITIES: Readonly<ProviderCapabilities> = Object.freeze({
  tools: true,
  persistence: true,
  prefetch: 'queued',
  sync: 'queued',
  mirrors: false,
  remote: false,
  durability: false,
});

/** The claims with defaults filled in and the boolean spellings of earlier versions read. */
export function resolveCapabilities(harness: ProviderHarness): ProviderCapabilities {
  const claims = harness.capabilities ?? {};
  const { backgroundSync, prefetch, mirrors, sync, ...rest } = claims;
  const out: ProviderCapabilities = { ...DEFAULT_CAPABILITIES, ...rest };
  if (prefetch !== undefined) out.prefetch = prefetch === true ? 'queued' : prefetch;
  if (mirrors !== undefined) out.mirrors = mirrors === true ? 'all' : mirrors;
  if (sync !== undefined) out.sync = sync;
  else if (backgroundSync !== undefined) out.sync = backgroundSync ? 'queued' : false;
  return out;
}

/** The builtin-write actions a mirrors claim covers. */
export function mirroredActions(capabilities: ProviderCapabilities): readonly MemoryWriteAction[] {
  const claim = capabilities.mirrors;
  if (claim === false) return [];
  if (claim === 'all') return ['add', 'replace', 'remove'];
  if (claim === 'add-only') return ['add'];
  return claim;
}

export function resolveWritesOn(harness: ProviderHarness): WritesOn {
  if (harness.writesOn) return harness.writesOn;
  return resolveCapabilities(harness).persistence ? { syncTurn: true } : {};
}

/** Wait a bounded number of event-loop turns (immediates and zero timers), never wall-clock time. */
export async function loopTurns(count: number, until?: () => boolean): Promise<void> {
  for (let i = 0; i < count; i++) {
    if (until?.()) return;
    await new Promise<void>((resolve) => (i % 2 === 0 ? setImmediate(resolve) : setTimeout(resolve, 0)));
  }
}

/**
 * Everything one check needs: fresh temp homes, providers it created (all shut down at the end),
 * initialisation with a recorded logger, and the harness's observation hooks with their defaults.
 */
export class CheckRuntime<P extends MemoryProvider = MemoryProvider> {
  readonly capabilities: ProviderCapabilities;
  readonly writesOn: WritesOn;
  readonly logs: LogRecord[] = [];
  private readonly root: { path: string; cleanup(): void };
  private readonly live = new Set<P>();
  private readonly homes: HarnessContext[] = [];
  private homeCount = 0;

  constructor(
    readonly harness: ProviderHarness<P>,
    readonly options: ConformanceOptions = {},
  ) {
    this.capabilities = resolveCapabilities(harness as ProviderHarness);
    this.writesOn = resolveWritesOn(harness as ProviderHarness);
    this.root = tempHermesHome('hm-conformance-');
  }

  /** A new empty HERMES_HOME inside this check's temp folder. */
  newHome(label = 'home'): HarnessContext {
    this.homeCount += 1;
    const dir = path.join(this.root.path, `${label}-${this.homeCount}`);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const context = { hermesHome: dir };
    this.homes.push(context);
    return context;
  }

  async create(context: HarnessContext): Promise<P> {
    const provider = await this.harness.create(context);
    ensure(
      typeof provider === 'object' && provider !== null,
      `harness.create() returned ${String(provider)}, not a provider`,
    );
    return provider;
  }

  async initialize(
    provider: P,
    context: HarnessContext,
    agentContext: AgentContext = 'primary',
    sessionId = 'conformance-session',
  ): Promise<void> {
    const logger = createRecordingLogger();
    const extra = (await this.harness.initContext?.({ ...context, agentContext, sessionId })) ?? {};
    const initContext: InitContext = {
      platform: 'cli',
      env: {},
      ...extra,
      logger: extra.logger ?? logger,
      hermesHome: context.hermesHome,
      agentContext,
    };
    this.live.add(provider);
    try {
      await provider.initialize(sessionId, initContext);
    } finally {
      this.logs.push(...logger.records);
    }
  }

  /** Create and initialize in one step. */
  async open(context: HarnessContext, agentContext: AgentContext = 'primary'): Promise<P> {
    const provider = await this.create(context);
    await this.initialize(provider, context, agentContext);
    return provider;
  }

  async shutdown(provider: P, options?: ShutdownOptions): Promise<void> {
    this.live.delete(provider);
    await provider.shutdown(options);
  }

  /**
   * Call `run` with a signal that aborts after `deadlineMs` (option, default 1000) and wait at most
   * `deadlineSlackMs` (default 1000) longer. `late` says what overran; `error` is what `run` threw.
   * The one place the suite measures wall-clock time: a deadline is a time.
   */
  async withinDeadline<T>(
    label: string,
    run: (signal: AbortSignal) => T | Promise<T>,
  ): Promise<{ result?: T; error?: unknown; late?: string }> {
    const budget = this.options.deadlineMs ?? 1000;
    const slack = this.options.deadlineSlackMs ?? 1000;
    const controller = new AbortController();
    const abortTimer = setTimeout(
      () => controller.abort(new DOMException(`${label}: budget of ${budget} ms spent`, 'TimeoutError')),
      budget,
    );
    let capTimer: NodeJS.Timeout | undefined;
    const cap = new Promise<'late'>((resolve) => {
      capTimer = setTimeout(() => resolve('late'), budget + slack);
    });
    try {
      const outcome = await Promise.race([
        Promise.resolve()
          .then(() => run(controller.signal))
          .then(
            (result) => ({ result }),
            (error: unknown) => ({ error }),
          ),
        cap,
      ]);
      if (outcome === 'late') {
        return {
          late: `${label} did not come back within ${budget + slack} ms (its signal aborted at ${budget} ms)`,
        };
      }
      return outcome;
    } finally {
      clearTimeout(abortTimer);
      clearTimeout(capTimer);
    }
  }

  /** Wait until the provider's background work is done (harness.settle, else pendingWork polling). */
  async settle(provider: P): Promise<void> {
    if (this.harness.settle) {
      await this.harness.settle(provider);
      return;
    }
    const pending = this.harness.pendingWork;
    if (pending) {
      const deadline = Date.now() + (this.options.settleTimeoutMs ?? 10_000);
      while (pending(provider) > 0) {
        if (Date.now() > deadline)
          fail(`background work did not finish: pendingWork() is still ${pending(provider)}`);
        await loopTurns(2);
      }
      return;
    }
    await loopTurns(20);
  }

  async snapshot(context: HarnessContext, provider: P): Promise<unknown> {
    if (this.harness.snapshot) return await this.harness.snapshot(context, provider);
    return snapshotFiles(context.hermesHome);
  }

  async seed(provider: P, texts: readonly string[], context: HarnessContext): Promise<void> {
    if (this.harness.seed) {
      await this.harness.seed(provider, texts, context);
    } else {
      for (const text of texts) await provider.syncTurn(text, 'Noted.', { sessionId: 'conformance-session' });
    }
    await this.settle(provider);
  }

  /** The text a recall returns (lists joined with newlines). */
  async recall(provider: P, query: string, context: HarnessContext): Promise<string> {
    if (this.harness.recall) {
      const hits = await this.harness.recall(provider, query, context);
      return Array.isArray(hits) ? hits.join('\n') : String(hits);
    }
    await provider.queuePrefetch(query, { sessionId: 'conformance-session' });
    await this.settle(provider);
    return String(await provider.prefetch(query, { sessionId: 'conformance-session' }));
  }

  /** Shut down what is still open (errors ignored: the check already has its verdict), clean up. */
  async dispose(): Promise<void> {
    for (const provider of [...this.live]) {
      try {
        await provider.shutdown();
      } catch {
        // A provider failing to shut down twice is reported by the lifecycle checks, not here.
      }
    }
    this.live.clear();
    for (const home of this.homes) {
      try {
        await this.harness.cleanup?.(home);
      } catch {
        // Cleanup failures must not mask the check's own result.
      }
    }
    this.root.cleanup();
  }
}

/** Every regular file under `dir`: relative path → sha256 of its bytes. */
export function snapshotFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (current: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(current, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) {
        out[path.relative(dir, full)] = createHash('sha256').update(fs.readFileSync(full)).digest('hex');
      }
    }
  };
  walk(dir);
  return out;
}

/** A readable description of what differs between two snapshots. */
export function describeSnapshotChange(before: unknown, after: unknown): string {
  if (isDeepStrictEqual(before, after)) return 'no change';
  if (isRecord(before) && isRecord(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    const changes: string[] = [];
    for (const key of keys) {
      if (!(key in before)) changes.push(`created ${key}`);
      else if (!(key in after)) changes.push(`deleted ${key}`);
      else if (!isDeepStrictEqual(before[key], after[key])) changes.push(`changed ${key}`);
    }
    return changes.slice(0, 8).join(', ') + (changes.length > 8 ? ` and ${changes.length - 8} more` : '');
  }
  return 'snapshot differs';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export { isDeepStrictEqual };
