import {
  HealthMonitor,
  type HealthStatus,
  isProviderHealth,
  type ProviderHealth,
  worseHealth,
} from '../health/health';
import type { Logger } from '../logging/logger';
import type { MemoryProvider } from '../provider/memory-provider';
import type { Clock } from '../resilience/clock';
import { describeError } from '../tools/results';

/** What `MemoryManager.onHealthChange` and `healthReport()` carry: one provider's health. */
export interface ProviderHealthReport extends ProviderHealth {
  provider: string;
}

export interface HealthChangeEvent {
  provider: string;
  health: ProviderHealth;
  previous: ProviderHealth;
}

/**
 * The manager's view of each provider's health: what it observed (failed and timed-out calls,
 * a failed initialisation) combined with what the provider reports itself (`health()`), the
 * worse of the two. A change is logged (WARNING when it gets worse, INFO on recovery) and handed
 * to the host's callback, so a backend that went down is seen by the user, not only in a log.
 */
export class HealthTracker {
  private readonly monitors = new Map<MemoryProvider, HealthMonitor>();
  private readonly reported = new Map<MemoryProvider, ProviderHealth>();

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly onChange: ((event: HealthChangeEvent) => void) | undefined,
  ) {}

  /** A success of a call that reached the backend (or its cache of it). */
  success(provider: MemoryProvider): void {
    this.monitor(provider).recordSuccess();
    this.publish(provider);
  }

  failure(provider: MemoryProvider, reason: string): void {
    this.monitor(provider).recordFailure(reason);
    this.publish(provider);
  }

  down(provider: MemoryProvider, reason: string): void {
    this.monitor(provider).markDown(reason);
    this.publish(provider);
  }

  reset(provider: MemoryProvider): void {
    this.monitor(provider).reset();
    this.reported.delete(provider);
  }

  /** The combined report (observed, and the provider's own `health()`). */
  current(provider: MemoryProvider): ProviderHealth {
    const observed = this.monitor(provider).snapshot();
    let own: ProviderHealth | null = null;
    try {
      const value: unknown = typeof provider.health === 'function' ? provider.health() : null;
      if (value !== null && value !== undefined) {
        if (isProviderHealth(value)) own = { ...value };
        else
          this.logger.debug(
            `Memory provider '${provider.name}' health() returned an invalid report; ignored.`,
          );
      }
    } catch (error) {
      this.logger.debug(`Memory provider '${provider.name}' health() failed: ${describeError(error)}`);
    }
    return { ...worseHealth(observed, own) };
  }

  /** Compare with what was last reported and tell the host about a change. */
  publish(provider: MemoryProvider): void {
    const health = this.current(provider);
    const previous: ProviderHealth = this.reported.get(provider) ?? {
      status: 'unknown',
      since: health.since,
      consecutiveFailures: 0,
    };
    const previousStatus: HealthStatus = previous.status;
    if (health.status === previousStatus) return;
    this.reported.set(provider, health);
    if (health.status === 'down' || health.status === 'degraded') {
      this.logger.warn(
        `Memory provider '${provider.name}' is ${health.status}${health.reason ? `: ${health.reason}` : ''}`,
      );
    } else if (health.status === 'ok' && previousStatus !== 'unknown') {
      this.logger.info(`Memory provider '${provider.name}' recovered.`);
    }
    if (!this.onChange) return;
    try {
      this.onChange({ provider: provider.name, health: { ...health }, previous: { ...previous } });
    } catch (error) {
      this.logger.debug(`Host onHealthChange callback failed: ${describeError(error)}`);
    }
  }

  private monitor(provider: MemoryProvider): HealthMonitor {
    let monitor = this.monitors.get(provider);
    if (!monitor) {
      monitor = new HealthMonitor({ clock: this.clock });
      this.monitors.set(provider, monitor);
    }
    return monitor;
  }
}
