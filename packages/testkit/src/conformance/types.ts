import type { AgentContext, InitContext, MemoryProvider } from '@hermes-memory/core';

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
 * What a provider claims. Every claimed capability has to pass its checks; an unclaimed one turns
 * its checks into printed skips (never silent ones).
 */
export interface ProviderCapabilities {
  /** The provider exposes tools (`getToolSchemas()` is non-empty). */
  tools: boolean;
  /** Writes survive `shutdown()` and a new provider on the same HERMES_HOME finds them. */
  persistence: boolean;
  /** `prefetch` serves what `queuePrefetch` prepared. */
  prefetch: boolean;
  /** `onMemoryWrite` add/replace/remove keep a mirror of the builtin store consistent. */
  mirrors: boolean;
  /** `syncTurn` hands its backend work to a background queue and returns first. */
  backgroundSync: boolean;
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
  /** Capabilities the provider claims. Defaults: everything true except `mirrors`. */
  capabilities?: Partial<ProviderCapabilities>;
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
  | 'mirror';

export interface ConformanceOptions {
  /** Check id → reason. Every skip is printed; an unknown id or an empty reason is an error. */
  skip?: Readonly<Record<string, string>>;
  /** fast-check runs per tool and property (default 60). */
  numRuns?: number;
  /** fast-check seed, for reproducing a failure (printed in the failure message). */
  seed?: number;
  /** Upper bound for waiting on background work in `settle` and `recall` (default 10 000 ms). */
  settleTimeoutMs?: number;
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
}
