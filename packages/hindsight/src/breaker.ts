/**
 * Hindsight's circuit breaker (decision 0953, the model is honcho's 0925): every attempt the
 * transport makes counts; five failures in a row stop all calls for 120 s; one trial decides.
 */
import {
  APICallError,
  CircuitBreaker,
  type Clock,
  CircuitOpenError,
  isClientError,
  type Logger,
} from '@hermes-memory/core';

/** Answered statuses that still say the service is in trouble (client errors otherwise are answers). */
const TROUBLE = new Set([408, 409, 429]);

/**
 * Server errors, timeouts, resets and malformed bodies count; an answered 4xx other than
 * 408/409/429 (the service is up, the request or key was wrong) does not.
 */
export function countsAsFailure(error: unknown): boolean {
  if (APICallError.isInstance(error) && error.statusCode !== undefined && TROUBLE.has(error.statusCode))
    return true;
  return !isClientError(error);
}

/** What a refused call, a tool and `health()` say while the breaker is open. */
export function unavailableMessage(breaker: CircuitBreaker, clock: Clock): string {
  const seconds = Math.ceil(Math.max(0, breaker.retryAt - clock.now()) / 1000);
  return `Hindsight is unavailable after ${breaker.failures} consecutive failed requests; retry after ${seconds} s.`;
}

/** The error a refused attempt fails with (at once, never retried). */
export function refusal(breaker: CircuitBreaker, clock: Clock): CircuitOpenError {
  return new CircuitOpenError(unavailableMessage(breaker, clock), breaker.retryAt);
}

/**
 * One attempt through `breaker` (none: the connection test): refused at once while it is open,
 * its outcome reported otherwise — an attempt its own caller aborted is released, not counted.
 */
export function throughBreaker<T>(
  breaker: CircuitBreaker | undefined,
  clock: Clock,
  signal: AbortSignal | undefined,
  attempt: () => Promise<T>,
): Promise<T> {
  if (!breaker) return attempt();
  return breaker.run(attempt, { ...(signal ? { signal } : {}), refusal: () => refusal(breaker, clock) });
}

export interface BreakerSettings {
  /** Consecutive failed requests that open it. Default 5. */
  breakerThreshold?: number;
  /** How long it stays open before one trial request. Default 120 000 ms. */
  breakerCooldownMs?: number;
}

/** The provider's breaker: logs when it opens and closes; `onClose` sends what was held. */
export function hindsightBreaker(
  settings: BreakerSettings,
  clock: Clock,
  logger: () => Logger,
  onClose: () => void,
): CircuitBreaker {
  const cooldownMs = settings.breakerCooldownMs ?? 120_000;
  const breaker: CircuitBreaker = new CircuitBreaker({
    threshold: settings.breakerThreshold ?? 5,
    cooldownMs,
    name: 'Hindsight',
    clock,
    isFailure: countsAsFailure,
    onStateChange: (state, previous) => {
      if (state === 'open' && previous === 'closed') {
        logger().warn(
          `Hindsight: ${breaker.failures} consecutive requests failed; pausing Hindsight calls for ${Math.round(cooldownMs / 1000)} s.`,
        );
      } else if (state === 'closed') {
        logger().info('Hindsight: reachable again; calls resumed.');
        // After the attempt that closed it has reported, not inside it.
        queueMicrotask(onClose);
      }
    },
  });
  return breaker;
}
