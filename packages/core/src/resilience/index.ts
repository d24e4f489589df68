export {
  type BreakerRunOptions,
  type BreakerState,
  CircuitBreaker,
  type CircuitBreakerOptions,
  createProviderBreaker,
  isBackendFailure,
  isDeadlineExpiry,
  type ProviderBreakerOptions,
} from './circuit-breaker';
export { abortReason, type Clock, type ClockTimer, ManualClock, sleep, systemClock } from './clock';
export { HeldLosses, type HeldLossesOptions } from './held-losses';
export { createDeadline, type Deadline, type DeadlineOptions, withDeadline } from './deadline';
export { type PollOptions, type PollResult, pollUntil } from './poll';
export {
  backoffDelay,
  isClientError,
  isRetryableError,
  parseRetryAfter,
  type RetryInfo,
  type RetryOptions,
  retry,
  retryAfterMs,
} from './retry';
export { UndeliveredWrites, type UndeliveredWritesOptions } from './undelivered-writes';
