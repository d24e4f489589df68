export { type BusyRetryOptions, isSqliteBusy, retryWhileBusy, sleepSync } from './busy-retry';
