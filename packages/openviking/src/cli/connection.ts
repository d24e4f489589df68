import {
  describeError,
  HealthMonitor,
  type ProbeResult,
  type ProviderCliContext,
  silentLogger,
} from '@hermes-memory/core';
import { Connection } from '../connection';
import { type ResolvedOpenvikingSettings, resolveOpenvikingSettings } from '../openviking-settings';
import { VERSION } from '../version';

/** How long a connection test may take (the CLI's probe budget). */
export const CHECK_TIMEOUT_MS = 10_000;

/** The settings the provider would run with in this home, resolved the same way, without loading it. */
export function cliSettings(
  ctx: Pick<ProviderCliContext, 'providerConfig' | 'env'>,
): ResolvedOpenvikingSettings {
  return resolveOpenvikingSettings({}, ctx.providerConfig, ctx.env);
}

/** The key as it may be shown: whether it is set and where from, never its value. */
export function keyState(settings: ResolvedOpenvikingSettings): string {
  return settings.apiKey === '' ? 'not set (tenant headers)' : `set (${settings.sources.apiKey})`;
}

export interface ConnectionTest extends ProbeResult {
  endpoint: string;
  server?: string;
  user?: string;
  keyRole?: 'root' | 'user';
}

/**
 * The identity probe, then `system/status` (the user memories live under) and, with a key, root
 * or user key detection — no auto-start, no retries, within 10 s and Ctrl-C. Never throws.
 */
export async function testConnection(
  ctx: Pick<ProviderCliContext, 'providerConfig' | 'env' | 'signal' | 'home'>,
): Promise<ConnectionTest> {
  const settings = cliSettings(ctx);
  const endpoint = settings.endpoint;
  const problem = settings.endpointError ?? settings.identityError;
  if (problem) return { status: 'failed', message: problem, endpoint };
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(CHECK_TIMEOUT_MS)]);
  const connection = new Connection({
    settings: () => ({ ...settings, autoStart: false }),
    version: VERSION,
    hermesHome: ctx.home,
    env: ctx.env,
    monitor: new HealthMonitor(),
    logger: silentLogger,
  });
  const started = Date.now();
  const client = await connection.ensure(signal);
  if (!client)
    return { status: 'failed', message: connection.reason || `nothing answered at ${endpoint}`, endpoint };
  try {
    const status = await client.systemStatus({ signal });
    const user = typeof status.user === 'string' ? status.user : undefined;
    const keyRole = client.hasKey ? await client.keyRole({ signal }) : undefined;
    return {
      status: 'ok',
      message: `OpenViking ${connection.serverVersion} answered at ${endpoint}${user ? ` (user ${user})` : ''}.`,
      latencyMs: Date.now() - started,
      endpoint,
      server: connection.serverVersion,
      ...(user ? { user } : {}),
      ...(keyRole ? { keyRole } : {}),
    };
  } catch (error) {
    return { status: 'failed', message: describeError(error), endpoint };
  }
}
