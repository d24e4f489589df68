import type { ProviderCheck, ProviderCliContext, ProviderStatusReport } from '@hermes-memory/core';
import { cliSettings, shownURL } from './connection';

/**
 * The provider's lines in `hermes-memory status`: where it connects and whether a key is set.
 * No network: the CLI adds the provider's runtime health, and `status --probe` its `probe()`.
 */
export function templateStatus(ctx: ProviderCliContext): ProviderStatusReport {
  const resolved = cliSettings(ctx);
  if ('problem' in resolved) return { details: { settings: resolved.problem } };
  const { settings } = resolved;
  return {
    details: {
      endpoint: shownURL(settings.baseURL),
      api_key: settings.apiKey === '' ? 'missing' : 'set',
      enabled: settings.enabled,
    },
  };
}

/**
 * `hermes-memory doctor` lines: the settings resolve and a key is configured. No network here:
 * doctor runs the provider's connection probe itself.
 */
export function templateChecks(ctx: ProviderCliContext): ProviderCheck[] {
  const resolved = cliSettings(ctx);
  if ('problem' in resolved)
    return [
      {
        id: 'settings',
        title: 'Template settings',
        status: 'fail',
        detail: resolved.problem,
        fix: 'Correct memory.template in config.yaml (or the TEMPLATE_* variables), or run hermes-memory setup template.',
      },
    ];
  const { settings } = resolved;
  const settingsOk: ProviderCheck = {
    id: 'settings',
    title: 'Template settings',
    status: 'ok',
    detail: `${shownURL(settings.baseURL)}${settings.enabled ? '' : ' (disabled)'}`,
  };
  const key: ProviderCheck =
    settings.apiKey !== ''
      ? { id: 'key', title: 'Template API key', status: 'ok', detail: 'TEMPLATE_API_KEY is set' }
      : {
          id: 'key',
          title: 'Template API key',
          status: settings.enabled ? 'fail' : 'skip',
          detail: 'TEMPLATE_API_KEY is not set',
          fix: 'hermes-memory setup template (it keeps the key in $HERMES_HOME/.env)',
        };
  return [settingsOk, key];
}
