/**
 * What the CLI commands share: the settings as the agent would resolve them in this home, the
 * bank they name, a client for them, and the one-line connection summary.
 */
import path from 'node:path';
import type { ProviderCliContext } from '@hermes-memory/core';
import { resolveBankId } from '../banks';
import { HindsightApi } from '../client';
import { type HindsightConfig, readHindsightConfigSource, resolveHindsightConfig } from '../config';

export interface CliSetup {
  config: HindsightConfig;
  /** The bank (template resolved with the profile name; user, platform and session are unknown here). */
  bankId: string;
}

/** `extraEnv` overlays the context's env (setup's freshly written key). */
export function cliSetup(ctx: ProviderCliContext, extraEnv: Record<string, string> = {}): CliSetup {
  const env = { ...ctx.env, ...extraEnv };
  const source = readHindsightConfigSource(ctx.home, env);
  const config = resolveHindsightConfig({}, { ...source, providerConfig: ctx.providerConfig, env });
  const bankId = resolveBankId(config.bankIdTemplate, config.bankId, {
    profile: profileName(ctx.home),
    platform: 'cli',
  }).bankId;
  return { config, bankId };
}

/** Hermes keeps a named profile's home at `<root>/profiles/<name>`; any other home is `default`. */
export function profileName(home: string): string {
  return path.basename(path.dirname(path.resolve(home))) === 'profiles' ? path.basename(home) : 'default';
}

/** Why the settings cannot reach a service, or '' when they can. */
export function unusable(config: HindsightConfig): string {
  if (config.mode === 'local_embedded')
    return "mode local_embedded is not supported by this package: run a Hindsight server and use mode 'local_external' (decision 0951)";
  if (config.mode === 'cloud' && config.apiKey === '' && !config.apiURLSet)
    return 'no API key (HINDSIGHT_API_KEY) and no api_url';
  return '';
}

/** A client for the resolved settings (no retries: the CLI reports what it saw), or a CLI failure. */
export function cliApi(ctx: ProviderCliContext, setup: CliSetup): HindsightApi {
  const problem = unusable(setup.config);
  if (problem) {
    throw ctx.fail(
      `Hindsight cannot connect: ${problem}.`,
      `Add HINDSIGHT_API_KEY=… to ${ctx.home}/.env or run: hermes-memory hindsight setup --mode local_external --api-url http://localhost:8888`,
    );
  }
  return new HindsightApi({
    baseURL: setup.config.apiURL,
    apiKey: setup.config.apiKey,
    timeoutMs: Math.round(setup.config.timeout * 1000),
    maxRetries: 0,
  });
}

export interface ConnectionReport {
  ok: boolean;
  message: string;
  version?: string;
  memories?: number;
  latencyMs?: number;
  /** `✓ Connected · Hindsight 0.5.6 · bank: hermes · 12 memories · mode cloud`. */
  summary: string;
}

/** The version and the bank's memory count. Never throws. */
export async function testConnection(ctx: ProviderCliContext, setup: CliSetup): Promise<ConnectionReport> {
  const tail = `bank: ${setup.bankId} · mode ${setup.config.mode}`;
  const problem = unusable(setup.config);
  if (problem) return { ok: false, message: problem, summary: `✗ ${problem} · ${tail}` };
  const result = await cliApi(ctx, setup).probe(setup.bankId, ctx.signal);
  if (result.status === 'ok') {
    return {
      ok: true,
      message: result.message,
      ...(result.version !== undefined ? { version: result.version } : {}),
      ...(result.memories !== undefined ? { memories: result.memories } : {}),
      ...(result.latencyMs !== undefined ? { latencyMs: result.latencyMs } : {}),
      summary: `✓ Connected · Hindsight ${result.version ?? '?'} · ${tail} · ${result.memories ?? 0} memories`,
    };
  }
  const error = result.message.length > 160 ? `${result.message.slice(0, 157)}...` : result.message;
  return { ok: false, message: result.message, summary: `✗ ${error} · ${tail}` };
}
