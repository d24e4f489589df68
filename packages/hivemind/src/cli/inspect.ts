/** What the CLI reads about hivemind without contacting anything: settings in force, role, checks. */
import path from 'node:path';
import {
  describeError,
  type ProviderCheck,
  type ProviderCliContext,
  privateFilesCheck,
} from '@hermes-memory/core';
import { HivemindProvider } from '../hivemind-provider';
import {
  missingConnection,
  type ResolvedHivemindSettings,
  resolveHivemindSettings,
} from '../hivemind-settings';

/** The provider as the agent would build it for this home (`.env`, `memory.hivemind`), not initialised. */
export function providerFor(ctx: ProviderCliContext): HivemindProvider {
  return new HivemindProvider({}, { env: ctx.env, providerConfig: ctx.providerConfig });
}

/** The settings in force, or the one-line reason they are invalid. */
export function settingsFor(ctx: ProviderCliContext): ResolvedHivemindSettings | { invalid: string } {
  try {
    return resolveHivemindSettings({}, ctx.providerConfig, ctx.env);
  } catch (error) {
    return { invalid: describeError(error) };
  }
}

/** Where hivemind runs in this home: the canonical provider, a secondary, or not at all. */
export function roleOf(ctx: ProviderCliContext): 'provider' | 'secondary' | 'inactive' {
  if (ctx.config.memory.provider === 'hivemind') return 'provider';
  return ctx.config.memory.secondary.some((s) => s.provider === 'hivemind') ? 'secondary' : 'inactive';
}

/** A few facts for `hermes-memory status` and `hermes-memory hivemind status` (never a secret). */
export function statusDetails(ctx: ProviderCliContext): Record<string, string | number | boolean> {
  const settings = settingsFor(ctx);
  if ('invalid' in settings) return { role: roleOf(ctx), settings: `invalid: ${settings.invalid}` };
  const missing = missingConnection(settings);
  return {
    role: roleOf(ctx),
    matrix:
      missing.length === 0
        ? `${settings.userId} on ${settings.homeserver}`
        : missing.length === 3
          ? 'not configured'
          : `incomplete (missing ${missing.join(', ')})`,
    notebook: settings.notebookUrl
      ? `${settings.notebookUrl}${settings.notebookKey ? ' (with key)' : ''}`
      : 'not configured',
    sparks: settings.sparks,
    enabled: settings.enabled,
  };
}

const isLoopback = (url: string) => {
  try {
    const host = new URL(url).hostname;
    return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\./.test(host);
  } catch {
    return false;
  }
};

/** `hermes-memory doctor`'s hivemind lines. No network (the probe is `test` / `doctor --probe`). */
export function hivemindChecks(ctx: ProviderCliContext): ProviderCheck[] {
  const settings = settingsFor(ctx);
  if ('invalid' in settings)
    return [
      {
        id: 'settings',
        title: 'Hivemind settings',
        status: 'fail',
        detail: settings.invalid,
        fix: 'Correct memory.hivemind in config.yaml or the MATRIX_* variables in .env (hermes-memory hivemind setup).',
      },
    ];
  const checks: ProviderCheck[] = [];
  const missing = missingConnection(settings);
  const notebook = settings.notebookUrl !== '';
  if (missing.length === 0)
    checks.push({
      id: 'matrix',
      title: 'Matrix account',
      status: 'ok',
      detail: `${settings.userId} on ${settings.homeserver}`,
    });
  else
    checks.push({
      id: 'matrix',
      title: 'Matrix account',
      status: missing.length === 3 && notebook ? 'skip' : 'fail',
      detail:
        missing.length === 3 && notebook
          ? 'not configured: the notebook runs alone, peer tools are off'
          : `missing ${missing.join(', ')}`,
      fix: 'hermes-memory hivemind setup --homeserver <url> --user <name> --password-stdin [--register]',
    });
  checks.push(
    notebook
      ? { id: 'notebook', title: 'Hermes notebook', status: 'ok', detail: settings.notebookUrl }
      : { id: 'notebook', title: 'Hermes notebook', status: 'skip', detail: 'not configured (optional)' },
  );
  const cleartext = [
    ...(missing.length === 0 && !/^https:/i.test(settings.homeserver) && !isLoopback(settings.homeserver)
      ? [`the access token goes to ${settings.homeserver} unencrypted`]
      : []),
    ...(notebook &&
    settings.notebookKey &&
    !/^https:/i.test(settings.notebookUrl) &&
    !isLoopback(settings.notebookUrl)
      ? [`the notebook key goes to ${settings.notebookUrl} unencrypted`]
      : []),
  ];
  if (cleartext.length > 0)
    checks.push({
      id: 'tls',
      title: 'Encrypted transport',
      status: 'warn',
      detail: cleartext.join('; '),
      fix: 'Use https:// URLs for servers that are not on this machine.',
    });
  const inConfig = ['access_token', 'notebook_key'].filter((k) => typeof ctx.providerConfig[k] === 'string');
  if (inConfig.length > 0)
    checks.push({
      id: 'secrets-in-config',
      title: 'Secrets in config.yaml',
      status: 'warn',
      detail: `memory.hivemind.${inConfig.join(', memory.hivemind.')} in config.yaml`,
      fix: 'Move them to $HERMES_HOME/.env (MATRIX_ACCESS_TOKEN, HERMES_SECRET_KEY) and delete the keys from config.yaml.',
    });
  checks.push(
    privateFilesCheck({
      id: 'private-files',
      title: 'Secret files',
      files: [path.join(ctx.home, '.env'), path.join(ctx.home, 'config.yaml')],
      home: ctx.home,
      okDetail: '.env and config.yaml are private',
    }),
  );
  const role = roleOf(ctx);
  // "Configured" only when the Matrix check above found an account: never beside its failure.
  const configured = checks.some((c) => c.id === 'matrix' && c.status === 'ok');
  checks.push(
    role === 'inactive'
      ? {
          id: 'role',
          title: 'Hivemind enabled',
          status: 'warn',
          detail: `${configured ? 'installed and configured' : 'installed'}, but named in neither memory.provider nor memory.secondary`,
          fix: "Add it beside your provider: memory.secondary: [hivemind] in config.yaml (or 'hermes-memory hivemind setup').",
        }
      : { id: 'role', title: 'Hivemind enabled', status: 'ok', detail: `as ${role}` },
  );
  return checks;
}
