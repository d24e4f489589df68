import { describeError } from '@hermes-memory/core';
import { OpenvikingClient } from '../client';
import { checkEndpoint } from '../endpoint';
import type { ConnectionValues } from '../setup-config';
import { VERSION } from '../version';

/** How long one setup request may take. */
const SETUP_TIMEOUT_MS = 10_000;

export type Reachability =
  | { state: 'ok' }
  /** Something answered, but not as a healthy OpenViking: never auto-started over. */
  | { state: 'responded'; message: string }
  | { state: 'unreachable'; message: string };

export type SetupValidation = { ok: true; role: 'root' | 'user' | null } | { ok: false; message: string };

function client(values: Pick<ConnectionValues, 'endpoint'> & Partial<ConnectionValues>): OpenvikingClient {
  return new OpenvikingClient({
    endpoint: values.endpoint,
    apiKey: values.apiKey ?? '',
    account: values.account ?? '',
    user: values.user ?? '',
    agent: values.agent ?? '',
    timeoutMs: SETUP_TIMEOUT_MS,
    version: VERSION,
  });
}

/** The anonymous identity probe (`GET /health`, `/openapi.json` for a legacy server). */
export async function checkReachable(endpoint: string, signal: AbortSignal): Promise<Reachability> {
  const identity = await client({ endpoint }).identify({ signal });
  switch (identity.kind) {
    case 'modern':
    case 'legacy':
      return { state: 'ok' };
    case 'unhealthy':
      return { state: 'responded', message: 'OpenViking server responded but reported unhealthy status.' };
    case 'invalid':
      return {
        state: 'responded',
        message: `OpenViking server responded, but its /health response is not valid OpenViking (${identity.reason}).`,
      };
    default:
      return {
        state: 'unreachable',
        message: `OpenViking server is not reachable at ${endpoint}: ${identity.reason}`,
      };
  }
}

/**
 * What setup checks before it saves a connection, over the wire as the reference does: the
 * identity probe, then `GET /api/v1/system/status` with the credentials, then — with a key —
 * `GET /api/v1/admin/accounts`, which only a root key may read (401/403/404 = a user key).
 * Messages never carry the key.
 */
export async function validateSetupValues(
  values: ConnectionValues,
  options: { requireApiKey: boolean; signal: AbortSignal },
): Promise<SetupValidation> {
  const checked = checkEndpoint(values.endpoint);
  if (!checked.ok) return { ok: false, message: `Invalid OpenViking endpoint: ${checked.reason}.` };
  if (options.requireApiKey && values.apiKey === '')
    return { ok: false, message: 'Remote OpenViking configs require an API key.' };
  const reach = await checkReachable(checked.endpoint, options.signal);
  if (reach.state !== 'ok')
    return {
      ok: false,
      message:
        reach.state === 'unreachable' ? `OpenViking validation failed: ${reach.message}` : reach.message,
    };
  const c = client({ ...values, endpoint: checked.endpoint });
  try {
    await c.systemStatus({ signal: options.signal });
    if (values.apiKey === '') return { ok: true, role: null };
    return { ok: true, role: await c.keyRole({ signal: options.signal }) };
  } catch (error) {
    return { ok: false, message: `OpenViking validation failed: ${describeError(error)}` };
  }
}
