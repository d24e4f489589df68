import { SettingsError } from '../errors/memory-error';
import type { MemoryManagerOptions } from './types';

/** Every time limit the manager puts on a provider call, in milliseconds. */
export interface Budgets {
  prefetch: number;
  initialize: number;
  toolCall: number;
  hook: number;
  background: number;
  sessionBoundary: number;
  shutdownDrain: number;
  shutdown: number;
}

export const DEFAULT_BUDGETS: Readonly<Budgets> = Object.freeze({
  prefetch: 8000,
  initialize: 10_000,
  toolCall: 60_000,
  hook: 10_000,
  background: 30_000,
  sessionBoundary: 10_000,
  shutdownDrain: 5000,
  shutdown: 5000,
});

/**
 * The part of a provider's `shutdown` deadline it may spend draining writes: all but a fifth, and
 * at most 1 s kept, to abandon what is stuck, stop recall and close its files before the manager's
 * own timer runs out (one still draining then is reported as a shutdown that timed out).
 */
export function writeDrainBudget(shutdownTimeoutMs: number): number {
  return shutdownTimeoutMs - Math.min(1000, shutdownTimeoutMs / 5);
}

function positive(name: string, value: number | undefined, fallback: number, allowInfinity = true): number {
  const v = value ?? fallback;
  if (!(v > 0) || (!allowInfinity && !Number.isFinite(v))) {
    throw new SettingsError(
      name,
      `${name} must be a positive number${allowInfinity ? ' (Infinity disables the limit)' : ''}.`,
    );
  }
  return v;
}

/** Validate and default the budget options (a clear SettingsError for a bad value). */
export function resolveBudgets(options: MemoryManagerOptions): Budgets {
  const drain = options.shutdownDrainMs ?? DEFAULT_BUDGETS.shutdownDrain;
  if (!(drain >= 0) || !Number.isFinite(drain)) {
    throw new SettingsError('shutdownDrainMs', 'shutdownDrainMs must be a non-negative number.');
  }
  return {
    prefetch: positive(
      'externalPrefetchTimeoutMs',
      options.externalPrefetchTimeoutMs,
      DEFAULT_BUDGETS.prefetch,
      false,
    ),
    initialize: positive('initializeTimeoutMs', options.initializeTimeoutMs, DEFAULT_BUDGETS.initialize),
    toolCall: positive('toolCallTimeoutMs', options.toolCallTimeoutMs, DEFAULT_BUDGETS.toolCall),
    hook: positive('hookTimeoutMs', options.hookTimeoutMs, DEFAULT_BUDGETS.hook),
    background: positive('backgroundTimeoutMs', options.backgroundTimeoutMs, DEFAULT_BUDGETS.background),
    sessionBoundary: positive(
      'sessionBoundaryTimeoutMs',
      options.sessionBoundaryTimeoutMs,
      DEFAULT_BUDGETS.sessionBoundary,
    ),
    shutdownDrain: drain,
    shutdown: positive('shutdownTimeoutMs', options.shutdownTimeoutMs, DEFAULT_BUDGETS.shutdown),
  };
}
