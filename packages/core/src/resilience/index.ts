export {
  type BreakerRunOptions,
  type BreakerState,
  CircuitBreaker,
  type CircuitBreakerOptions,
  isBackendFailure,
  isDeadlineExpiry,
} from './circuit-breaker';
export { abortReason, type Clock, type ClockTimer, ManualClock, sleep, systemClock } from './clock';
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
