import {
  type ProbeResult,
  type ProviderCliContext,
  SettingsError,
  describeError,
  safeUrl,
} from '@hermes-memory/core';
import { TemplateClient } from '../client';
import { type ResolvedTemplateSettings, resolveTemplateSettings } from '../template-settings';

/** How long a connection test may take, whatever the configured timeout (the CLI's probe budget). */
export const CHECK_TIMEOUT_MS = 10_000;

/**
 * The settings the provider would run with in this home: `memory.template` in config.yaml, then
 * `TEMPLATE_*` from the environment and `<home>/.env` — resolved the same way, without loading the
 * provider. An invalid value is reported, not thrown.
 */
export function cliSettings(
  ctx: Pick<ProviderCliContext, 'providerConfig' | 'env'>,
): { settings: ResolvedTemplateSettings } | { problem: string } {
  try {
    return { settings: resolveTemplateSettings({}, ctx.providerConfig, ctx.env) };
  } catch (error) {
    return { problem: SettingsError.isInstance(error) ? error.message : describeError(error) };
  }
}

/** The base URL as it may be shown: user-info dropped, secret-looking query values masked. */
export function shownURL(baseURL: string): string {
  try {
    return safeUrl(new URL(baseURL)).replace(/\/$/, '');
  } catch {
    return '(not a URL)';
  }
}

/**
 * One authenticated request to the service (the client's `probe`, no retries), within
 * `CHECK_TIMEOUT_MS` and Ctrl-C. Never throws: a missing key or a bad setting is a failed result.
 */
export async function testConnection(
  ctx: Pick<ProviderCliContext, 'providerConfig' | 'env' | 'signal'>,
): Promise<ProbeResult & { endpoint?: string }> {
  const resolved = cliSettings(ctx);
  if ('problem' in resolved) return { status: 'failed', message: resolved.problem };
  const { settings } = resolved;
  const endpoint = shownURL(settings.baseURL);
  if (!settings.enabled)
    return { status: 'skipped', message: 'Template is disabled (enabled: false).', endpoint };
  if (settings.apiKey === '')
    return {
      status: 'failed',
      message: 'No API key: set TEMPLATE_API_KEY (hermes-memory setup template).',
      endpoint,
    };
  const client = new TemplateClient({
    baseURL: settings.baseURL,
    apiKey: settings.apiKey,
    timeoutMs: Math.min(settings.timeoutMs, CHECK_TIMEOUT_MS),
    maxRetries: 0,
  });
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(CHECK_TIMEOUT_MS)]);
  return { ...(await client.probe(signal)), endpoint };
}
