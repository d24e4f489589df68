/** Mem0's lines in `hermes-memory status`, `doctor` and after `setup`: configuration, no network. */
import path from 'node:path';
import {
  describeError,
  type ProviderCheck,
  type ProviderCliContext,
  type ProviderStatusReport,
  privateFilesCheck,
  type SavedSetup,
} from '@hermes-memory/core';
import {
  isConfigured,
  MEM0_CONFIG_FILE,
  type ResolvedMem0Config,
  readMem0Json,
  resolveMem0Config,
  resolveUserId,
  unavailableReasonFor,
} from '../config';
import { mem0OutboxDir, mem0WritesOnDisk } from '../outbox';
import { mem0ForHome } from './session';

const BACKEND_LABELS = {
  platform: 'Mem0 Platform (cloud API)',
  selfhosted: 'self-hosted Mem0 server',
  oss: 'OSS (in process)',
} as const;

/** The configuration the agent would resolve for this home. Throws a SettingsError when broken. */
export function mem0ConfigFor(ctx: ProviderCliContext): ResolvedMem0Config {
  return resolveMem0Config(
    {},
    { env: ctx.env, providerConfig: ctx.providerConfig, file: readMem0Json(ctx.home) },
  );
}

/**
 * Backend, endpoint, user and key presence, from configuration only: status never contacts the
 * service. Health and the connection probe come from the CLI (`status --probe` runs the probe).
 */
export function mem0Status(ctx: ProviderCliContext): ProviderStatusReport {
  let config: ResolvedMem0Config;
  try {
    config = mem0ConfigFor(ctx);
  } catch (error) {
    return { details: { config: `invalid: ${describeError(error)}` } };
  }
  return {
    details: {
      backend: BACKEND_LABELS[config.backend],
      endpoint: endpointOf(config),
      user_id: resolveUserId(config.userId, undefined),
      agent_id: config.agentId,
      api_key: config.apiKey ? 'set' : 'not set',
      configured: isConfigured(config),
      // Writes an outage or a crash left undelivered (decision 0115): the next agent start sends them.
      waiting_on_disk: mem0WritesOnDisk(ctx.home),
    },
  };
}

/** Config resolves and names a backend; mem0.json is private; MEM0_HOST does not override the Platform choice. */
export function mem0Checks(ctx: ProviderCliContext): ProviderCheck[] {
  const file = path.join(ctx.home, MEM0_CONFIG_FILE);
  const checks: ProviderCheck[] = [];
  let config: ResolvedMem0Config | undefined;
  try {
    config = mem0ConfigFor(ctx);
    checks.push(
      isConfigured(config)
        ? {
            id: 'config',
            title: 'Mem0 configuration',
            status: 'ok',
            detail: `${BACKEND_LABELS[config.backend]} at ${endpointOf(config)}`,
          }
        : {
            id: 'config',
            title: 'Mem0 configuration',
            status: 'fail',
            detail: unavailableReasonFor(config),
            fix: "run 'hermes-memory setup mem0', or set MEM0_API_KEY / MEM0_HOST in HERMES_HOME/.env",
          },
    );
  } catch (error) {
    checks.push({
      id: 'config',
      title: 'Mem0 configuration',
      status: 'fail',
      detail: describeError(error),
      fix: `fix or remove ${file}, then run 'hermes-memory setup mem0'`,
    });
  }
  checks.push(
    privateFilesCheck({
      id: 'permissions',
      title: `${MEM0_CONFIG_FILE} permissions (0600)`,
      files: [file],
      home: ctx.home,
      okDetail: `${MEM0_CONFIG_FILE} is private (or absent)`,
    }),
  );
  const waiting = mem0WritesOnDisk(ctx.home);
  if (waiting > 0)
    checks.push({
      id: 'outbox',
      title: 'undelivered writes',
      status: 'warn',
      detail: `${waiting} write(s) from a time Mem0 was unreachable wait on disk (${mem0OutboxDir(ctx.home)}).`,
      fix: 'Start the agent while Mem0 is reachable: they are sent first.',
    });
  const hostOverride = hostOverrideWarning(ctx);
  if (hostOverride) {
    checks.push({
      id: 'host-override',
      title: 'Mem0 backend choice',
      status: 'warn',
      detail: hostOverride,
      fix: 'remove MEM0_HOST from HERMES_HOME/.env (or the environment) to use the Platform',
    });
  }
  return checks;
}

/**
 * After `hermes-memory setup mem0` saved the settings: the reference's warning when MEM0_HOST
 * would keep routing to a self-hosted server, then one request to check the key and the endpoint.
 */
export async function mem0PostSetup(ctx: ProviderCliContext, _saved: SavedSetup): Promise<void> {
  const hostOverride = hostOverrideWarning(ctx);
  if (hostOverride) ctx.err(`${ctx.style.yellow('⚠')} ${hostOverride}`);
  const result = await mem0ForHome(ctx).probe({ signal: ctx.signal });
  if (result.status === 'failed') throw ctx.fail(result.message, 'Check MEM0_API_KEY and MEM0_HOST.');
  if (result.status === 'ok') ctx.out(`${ctx.style.green('✓')} ${result.message}`);
  else ctx.err(`${ctx.style.yellow('⚠')} ${result.message}`);
}

/** mem0.json chose the Platform (`host: ""`) but MEM0_HOST still routes to a server. */
function hostOverrideWarning(ctx: ProviderCliContext): string | undefined {
  let file: Readonly<Record<string, unknown>>;
  try {
    file = readMem0Json(ctx.home);
  } catch {
    return undefined;
  }
  const envHost = ctx.env.MEM0_HOST?.trim();
  if (file.host !== '' || !envHost) return undefined;
  return `MEM0_HOST is set (${envHost}); it overrides the Platform choice in ${MEM0_CONFIG_FILE}, so Hermes keeps using that self-hosted server.`;
}

function endpointOf(config: ResolvedMem0Config): string {
  if (config.backend === 'selfhosted') return config.host;
  if (config.backend === 'platform') return config.platformURL;
  return 'in process';
}
