/**
 * The connection test (`probe()`, `hermes-memory honcho test`, `status --probe`, setup): one
 * metadata read of the workspace with no retries, timed, answering what went wrong in words.
 */
import { type Clock, type ProbeResult, systemClock } from '@hermes-memory/core';
import { tokenSourceFor } from '../auth/token-source';
import type { HonchoConfig } from '../config/types';
import { HonchoClient } from './honcho-client';

export const DEFAULT_TIMEOUT_S = 30;

/** An SDK client for `config` (no background health, retries as given). */
export function clientFor(
  config: HonchoConfig,
  options: { maxRetries?: number; clock?: Clock } = {},
): HonchoClient {
  return new HonchoClient({
    apiKey: config.apiKey,
    apiKeyInFile: config.apiKeyInFile,
    baseUrl: config.baseUrl,
    environment: config.environment,
    workspaceId: config.workspaceId,
    timeoutMs: (config.timeoutSeconds ?? DEFAULT_TIMEOUT_S) * 1000,
    ...options,
    // A signed-in host refreshes its token here too (the CLI's commands), and saves the rotation.
    oauth: tokenSourceFor(config, options.clock ? { clock: options.clock } : {}),
  });
}

export async function probeHoncho(
  client: HonchoClient,
  signal: AbortSignal | undefined,
  clock: Clock = systemClock,
): Promise<ProbeResult> {
  const started = clock.now();
  try {
    await client.call(signal, (sdk) => sdk.getMetadata(), { bypassBreaker: true });
    return {
      status: 'ok',
      message: `Honcho at ${client.baseUrl} answered (workspace '${client.workspaceId}').`,
      latencyMs: clock.now() - started,
    };
  } catch (error) {
    return {
      status: 'failed',
      message: error instanceof Error ? error.message : String(error),
      latencyMs: clock.now() - started,
    };
  }
}
