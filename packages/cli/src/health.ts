import {
  type Logger,
  MemoryManager,
  type MemoryProvider,
  type ProbeResult,
  type ProviderHealth,
} from '@hermes-memory/core';
import { formatTimestamp } from './format';

/** How long `status --probe` and `doctor` give a provider's connection probe. */
export const PROBE_TIMEOUT_MS = 10_000;

export interface ProviderHealthView {
  health: ProviderHealth;
  /** Present when the connection probe ran. */
  probe?: ProbeResult;
}

/**
 * A provider's runtime health as this process can know it (decision 0106): the provider's own view
 * (`health()`) combined with what the manager observed, which in a CLI process is only the
 * explicit connection probe, when `probe` asks for one. A provider is never initialised here
 * (status and doctor are read-only), so an unprobed provider with no view of its own is `unknown`.
 */
export async function providerHealth(
  provider: MemoryProvider,
  options: { probe: boolean; logger: Logger; signal?: AbortSignal; timeoutMs?: number },
): Promise<ProviderHealthView> {
  // One manager per provider: health is tracked per registered provider, one external at a time.
  const manager = new MemoryManager({
    logger: options.logger,
    hookTimeoutMs: options.timeoutMs ?? PROBE_TIMEOUT_MS,
  });
  const registered = manager.addProvider(provider);
  let probe: ProbeResult | undefined;
  if (registered && options.probe) {
    const [result] = await manager.probeProviders({ ...(options.signal ? { signal: options.signal } : {}) });
    if (result) {
      const { provider: _name, ...rest } = result;
      probe = rest;
    }
  }
  const health = (registered ? manager.getProviderHealth(provider.name) : null) ?? {
    status: 'unknown',
    reason: 'the provider could not be registered (its tool list failed)',
    since: Date.now(),
    consecutiveFailures: 0,
  };
  return probe ? { health, probe } : { health };
}

/** A provider that failed to load is down, since now, with the load error as its reason. */
export function loadFailureHealth(reason: string): ProviderHealth {
  return { status: 'down', reason, since: Date.now(), consecutiveFailures: 1 };
}

/** "down since 2026-05-01 14:03 — HTTP 503: overloaded", "ok", "unknown (not probed)". */
export function describeHealth(health: ProviderHealth): string {
  if (health.status === 'unknown' && !health.reason) return 'unknown (not observed in this process)';
  const since = health.status === 'ok' ? '' : ` since ${formatTimestamp(health.since / 1000)}`;
  return `${health.status}${since}${health.reason ? ` — ${health.reason}` : ''}`;
}
