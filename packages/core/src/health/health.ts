import { redactSecrets } from '../logging/redact';
import { APICallError } from '../errors/memory-error';
import { type Clock, systemClock } from '../resilience/clock';
import { isClientError } from '../resilience/retry';
import { describeError } from '../tools/results';

/**
 * Runtime health, separate from availability: `isAvailable()` says whether a provider is
 * configured; health says whether its backend has been answering.
 * - `ok`: the last observed calls succeeded;
 * - `degraded`: recent calls failed or timed out, the provider still runs (served from cache,
 *   retrying);
 * - `down`: the backend is unreachable, failed to initialise, or a breaker is open;
 * - `unknown`: nothing observed yet.
 */
export type HealthStatus = 'ok' | 'degraded' | 'down' | 'unknown';

export interface ProviderHealth {
  status: HealthStatus;
  /** Why it is not ok, one line ("prefetch timed out after 8000 ms", "HTTP 503: overloaded"). */
  reason?: string;
  /** When the current status began (clock ms, `Date.now()` by default). */
  since: number;
  consecutiveFailures: number;
  lastSuccessAt?: number;
  lastFailureAt?: number;
}

/** The answer of an explicit connection probe (setup, doctor). */
export interface ProbeResult {
  status: 'ok' | 'failed' | 'skipped';
  /** One line for the user: what was checked and what happened. */
  message: string;
  latencyMs?: number;
}

export interface HealthMonitorOptions {
  /** Consecutive failures after which the status is `down` (before that: `degraded`). Default 3. */
  downAfter?: number;
  clock?: Clock;
  /** Called when the status changes (not on every call). */
  onChange?: (health: ProviderHealth, previous: ProviderHealth) => void;
}

const SEVERITY: Record<HealthStatus, number> = { unknown: 0, ok: 1, degraded: 2, down: 3 };

/** The worse of two reports (a provider's own view and what the manager observed). */
export function worseHealth(a: ProviderHealth, b: ProviderHealth | null | undefined): ProviderHealth {
  if (!b) return a;
  if (SEVERITY[b.status] > SEVERITY[a.status]) return b;
  if (SEVERITY[b.status] === SEVERITY[a.status] && a.status !== 'ok' && !a.reason && b.reason) return b;
  return a;
}

/** Validates a health report that came from provider code (a plugin may return anything). */
export function isProviderHealth(value: unknown): value is ProviderHealth {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.status === 'string' && v.status in SEVERITY && typeof v.since === 'number';
}

/**
 * Health from the last observed calls. A success makes it `ok`; a failure `degraded`, and
 * `downAfter` consecutive failures (or an explicit `markDown`) `down`. `since` moves only when
 * the status changes, so "down since 12:03" stays true while failures continue.
 */
export class HealthMonitor {
  private readonly clock: Clock;
  private readonly downAfter: number;
  private readonly onChange: HealthMonitorOptions['onChange'];
  private state: ProviderHealth;

  constructor(options: HealthMonitorOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.downAfter = Math.max(1, Math.trunc(options.downAfter ?? 3));
    this.onChange = options.onChange;
    this.state = { status: 'unknown', since: this.clock.now(), consecutiveFailures: 0 };
  }

  /** A copy of the current report. */
  snapshot(): ProviderHealth {
    return { ...this.state };
  }

  get status(): HealthStatus {
    return this.state.status;
  }

  recordSuccess(): void {
    const now = this.clock.now();
    this.update({ status: 'ok', consecutiveFailures: 0, lastSuccessAt: now }, now);
  }

  /**
   * The outcome of a call that threw `error`. A 4xx the backend answered says it is up and the
   * request was wrong (a success for health), except 401 and 403: every call fails until the
   * credentials are fixed, so a wrong or revoked key must not read as healthy.
   */
  recordError(error: unknown): void {
    if (isClientError(error) && !isAuthError(error)) this.recordSuccess();
    else this.recordFailure(error);
  }

  /** A failed or timed-out call; `reason` may be the error itself. */
  recordFailure(reason: unknown): void {
    const now = this.clock.now();
    const failures = this.state.consecutiveFailures + 1;
    this.update(
      {
        status: failures >= this.downAfter ? 'down' : 'degraded',
        reason: oneLine(reason),
        consecutiveFailures: failures,
        lastFailureAt: now,
      },
      now,
    );
  }

  /** Down regardless of counts (initialisation failed, a breaker opened, the backend said so). */
  markDown(reason: unknown): void {
    const now = this.clock.now();
    this.update(
      {
        status: 'down',
        reason: oneLine(reason),
        consecutiveFailures: Math.max(this.state.consecutiveFailures, 1),
        lastFailureAt: now,
      },
      now,
    );
  }

  /** Back to `unknown` (a provider was re-initialised). */
  reset(): void {
    this.update({ status: 'unknown', consecutiveFailures: 0 }, this.clock.now(), true);
  }

  private update(patch: Partial<ProviderHealth>, now: number, replace = false): void {
    const previous = this.state;
    const next: ProviderHealth = replace
      ? { status: 'unknown', since: now, consecutiveFailures: 0, ...patch }
      : { ...previous, ...patch };
    if (next.status === 'ok') delete next.reason;
    next.since = next.status === previous.status ? previous.since : now;
    this.state = next;
    if (next.status !== previous.status) this.onChange?.({ ...next }, { ...previous });
  }
}

function oneLine(reason: unknown): string {
  const text = typeof reason === 'string' ? reason : describeError(reason);
  const first = redactSecrets((text.split('\n')[0] ?? '').trim());
  return first.length > 300 ? `${first.slice(0, 297)}...` : first;
}

/** A 401 or 403 answer: the backend refused the credentials. */
export function isAuthError(error: unknown): boolean {
  return APICallError.isInstance(error) && (error.statusCode === 401 || error.statusCode === 403);
}
