import type { AgentContext, InitContext, MemoryProvider, MemoryWriteAction } from '@hermes-memory/core';

/** What every harness hook receives: the profile root the provider under test lives in. */
export interface HarnessContext {
  /** A fresh temporary HERMES_HOME per check (shared by the providers one check re-creates). */
  hermesHome: string;
}

export interface HarnessInitContext extends HarnessContext {
  agentContext: AgentContext;
  sessionId: string;
}

/**
 * How `prefetch` finds its text:
 * - `queued`: it serves what `queuePrefetch` prepared after the previous turn (no I/O, no backend call);
 * - `turn-start`: `onTurnStart(n, message)` starts recall for the current message and `prefetch`
 *   serves it (Mem0);
 * - `current-query`: `prefetch` itself asks the backend, within the signal's budget (ByteRover,
 *   Supermemory's synchronous mode).
 */
export type PrefetchCapability = 'queued' | 'turn-start' | 'current-query';

/**
 * How `syncTurn` writes: `queued` hands the backend work to a background queue and returns first;
 * `buffered` keeps the turn in memory (no I/O at all) and writes it at a flush, session end or
 * shutdown.
 */
export type SyncCapability = 'queued' | 'buffered';

/** Which builtin writes `onMemoryWrite` mirrors: `all` (add, replace, remove), `add-only`, or a list. */
export type MirrorCapability = 'all' | 'add-only' | readonly MemoryWriteAction[];

/**
 * What a provider claims. Every claimed capability has to pass its checks; an unclaimed one turns
 * its checks into printed skips (never silent ones).
 */
export interface ProviderCapabilities {
  /** The provider exposes tools (`getToolSchemas()` is non-empty). */
  tools: boolean;
  /** Writes survive `shutdown()` and a new provider on the same HERMES_HOME finds them. */
  persistence: boolean;
  prefetch: false | PrefetchCapability;
  sync: false | SyncCapability;
  mirrors: false | MirrorCapability;
  /**
   * The provider talks to a backend over the network. Requires the harness's `backendCalls`,
   * `pendingWork` and `injectFault`, and runs the fault checks (tools answer JSON, prefetch stays in
   * budget, syncTurn never rejects, shutdown keeps its deadline while the backend hangs).
   */
  remote: boolean;
  /**
   * A write acknowledged by `syncTurn` (it resolved) survives `kill -9`. Requires the harness's
   * `durabilityWorker`; proven by killing a child process mid-stream.
   */
  durability: boolean;
}

/**
 * What a harness may claim. The booleans of earlier versions still read: `prefetch: true` is
 * `'queued'`, `mirrors: true` is `'all'`, `backgroundSync: true` is `sync: 'queued'`.
 */
export type CapabilityClaims = Partial<Omit<ProviderCapabilities, 'prefetch' | 'mirrors' | 'sync'>> & {
  prefetch?: boolean | PrefetchCapability;
  sync?: false | SyncCapability;
  mirrors?: boolean | MirrorCapability;
  /** @deprecated use `sync: 'queued'` (true) or `sync: false`. */
  backgroundSync?: boolean;
};

/** A backend fault the suite asks the harness to inject (a fake server's `fail`). */
export type ConformanceFault = (
  | { type: 'status'; status: number; retryAfter?: number }
  | { type: 'timeout' }
  | { type: 'reset' }
  | { type: 'malformed' }
) & {
  /** How many requests get it. */
  count: number;
};

/** The child side of the kill -9 check: a script that calls `runDurabilityWorker`. */
export interface DurabilityWorker {
  /** Absolute path of the worker module. */
  script: string;
  /** Node flags, e.g. `['--import', 'tsx']` for a TypeScript worker. */
  execArgv?: readonly string[];
  /** Environment for the child (default: this process's). */
  env?: NodeJS.ProcessEnv;
}

/**
 * Which operations change persistent state when run in the primary context. The non-primary check
 * first runs them as `primary` and requires a visible change: that proves the snapshot can see the
 * writes, so "nothing changed under subagent/cron/flush" is a real result and not a blind spot.
 */
export interface WritesOn {
  syncTurn?: boolean;
  memoryWrite?: boolean;
  sessionEnd?: boolean;
  /** Tool name → arguments that make it write, e.g. `{ template_remember: { content: 'x' } }`. */
  tools?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/**
 * How the conformance suite drives one provider. Only `create` is required; every other hook
 * improves what the suite can observe.
 */
export interface ProviderHarness<P extends MemoryProvider = MemoryProvider> {
  /** A new, uninitialized provider for this HERMES_HOME. Called several times per check. */
  create(context: HarnessContext): P | Promise<P>;
  /** Extra `initialize` context (settings, env, injected llm/embedder). */
  initContext?(context: HarnessInitContext): Partial<InitContext> | Promise<Partial<InitContext>>;
  /**
   * Capabilities the provider claims. Defaults: tools, persistence, prefetch `queued`, sync
   * `queued`; no mirrors, not remote, no durability.
   */
  capabilities?: CapabilityClaims;
  /** See {@link WritesOn}. Defaults to `{ syncTurn: true }` when `persistence` is claimed. */
  writesOn?: WritesOn;
  /**
   * The provider's persistent state, compared with `isDeepStrictEqual`. Default: every file under
   * hermesHome, byte for byte (path → sha256).
   */
  snapshot?(context: HarnessContext, provider: P): unknown | Promise<unknown>;
  /**
   * Find stored text. Default: `queuePrefetch(query)`, settle, `prefetch(query)`. Return the text
   * the provider would hand the model (or a list of hits).
   */
  recall?(
    provider: P,
    query: string,
    context: HarnessContext,
  ): string | string[] | Promise<string | string[]>;
  /**
   * Store texts so prefetch has something to find. Default: one `syncTurn(text, 'Noted.')` per text,
   * then settle.
   */
  seed?(provider: P, texts: readonly string[], context: HarnessContext): void | Promise<void>;
  /** Wait until queued background work is done. Default: poll `pendingWork` until it is 0. */
  settle?(provider: P): void | Promise<void>;
  /** Number of queued or running background tasks. Sampled right after `syncTurn()` returns. */
  pendingWork?(provider: P): number;
  /** Count of backend requests (e.g. a fake server's request log length); prefetch must not add any. */
  backendCalls?(): number;
  /** Make the backend fail the next requests (a fake server's `fail`). Required for `remote`. */
  injectFault?(fault: ConformanceFault): void;
  /** Drop faults not triggered yet. */
  clearFaults?(): void;
  /** The child side of the kill -9 check. Required for `durability`. */
  durabilityWorker?: DurabilityWorker;
  /** Called once per check after its providers are shut down, before the temp home is removed. */
  cleanup?(context: HarnessContext): void | Promise<void>;
}

export type ConformanceGroup =
  | 'availability'
  | 'lifecycle'
  | 'tools'
  | 'context'
  | 'prefetch'
  | 'sync'
  | 'persistence'
  | 'mirror'
  | 'remote'
  | 'faults'
  | 'durability'
  | 'safety';

export interface ConformanceOptions {
  /** Check id → reason. Every skip is printed; an unknown id or an empty reason is an error. */
  skip?: Readonly<Record<string, string>>;
  /** fast-check runs per tool and property (default 60). */
  numRuns?: number;
  /** fast-check seed, for reproducing a failure (printed in the failure message). */
  seed?: number;
  /** Upper bound for waiting on background work in `settle` and `recall` (default 10 000 ms). */
  settleTimeoutMs?: number;
  /**
   * The budget the deadline checks give a call (the signal aborts then) and the slack allowed
   * after it, in ms (defaults 1000 and 1000). A call must come back within budget + slack.
   */
  deadlineMs?: number;
  deadlineSlackMs?: number;
  /** Turns the kill -9 check writes per round (default 12) and rounds (default 3). */
  durabilityTurns?: number;
  durabilityRounds?: number;
}

export type CheckStatus = 'passed' | 'failed' | 'skipped';

export interface CheckResult {
  id: string;
  status: CheckStatus;
  /** Why it failed or was skipped. */
  message?: string;
  /** The original error of a failure. */
  error?: unknown;
}

export interface ConformanceCheck {
  id: string;
  group: ConformanceGroup;
  /** One line: what is required. */
  title: string;
  /** The capability that must be claimed for the check to run. */
  capability?: keyof ProviderCapabilities;
  /** Only for these values of the capability (e.g. prefetch `queued`). */
  capabilityValues?: readonly string[];
}
