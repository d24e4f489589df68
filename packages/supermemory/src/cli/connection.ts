/**
 * What the CLI commands share: the settings as the agent would resolve them in this home, a
 * client for them, and the reference's one-line connection summary (setup and the status panel).
 */
import path from 'node:path';
import type { ProviderCliContext } from '@hermes-memory/core';
import { SupermemoryClient } from '../client';
import { readSupermemoryJson, resolveSupermemoryConfig, type SupermemoryConfig } from '../config';
import { resolveContainerTag } from '../containers';

export interface CliSetup {
  config: SupermemoryConfig;
  /** The primary container tag (profile name substituted, sanitised). */
  containerTag: string;
}

export function cliSetup(ctx: ProviderCliContext): CliSetup {
  const config = resolveSupermemoryConfig(
    {},
    { file: readSupermemoryJson(ctx.home), providerConfig: ctx.providerConfig, env: ctx.env },
  );
  return { config, containerTag: resolveContainerTag(config.containerTag, profileName(ctx.home)) };
}

/** Hermes keeps a named profile's home at `<root>/profiles/<name>`; any other home is `default`. */
export function profileName(home: string): string {
  return path.basename(path.dirname(path.resolve(home))) === 'profiles' ? path.basename(home) : 'default';
}

/** A client for the resolved settings, or a CLI failure naming the missing key. */
export function cliClient(ctx: ProviderCliContext, setup: CliSetup): SupermemoryClient {
  if (setup.config.apiKey === '') {
    throw ctx.fail(
      'Supermemory has no API key.',
      `Add SUPERMEMORY_API_KEY=… to ${ctx.home}/.env (or run: hermes-memory setup supermemory).`,
    );
  }
  return new SupermemoryClient({
    apiKey: setup.config.apiKey,
    baseURL: setup.config.baseURL,
    timeoutMs: Math.round(setup.config.apiTimeout * 1000),
    maxRetries: 0,
  });
}

export interface ConnectionReport {
  ok: boolean;
  message: string;
  facts: number;
  latencyMs?: number;
  /** The reference's summary: `✓ Connected · container: X · N profile facts · auto_recall on · auto_capture on`. */
  summary: string;
}

/** One profile call for the primary container. Never throws. */
export async function testConnection(ctx: ProviderCliContext, setup: CliSetup): Promise<ConnectionReport> {
  const flags = `auto_recall ${setup.config.autoRecall ? 'on' : 'off'} · auto_capture ${setup.config.autoCapture ? 'on' : 'off'}`;
  if (setup.config.apiKey === '') {
    return {
      ok: false,
      message: 'no API key (SUPERMEMORY_API_KEY)',
      facts: 0,
      summary: `✗ no API key (SUPERMEMORY_API_KEY) · container: ${setup.containerTag} · ${flags}`,
    };
  }
  const result = await cliClient(ctx, setup).probe(setup.containerTag, ctx.signal);
  if (result.status === 'ok') {
    const facts = result.facts ?? 0;
    return {
      ok: true,
      message: result.message,
      facts,
      ...(result.latencyMs !== undefined ? { latencyMs: result.latencyMs } : {}),
      summary: `✓ Connected · container: ${setup.containerTag} · ${facts} profile facts · ${flags}`,
    };
  }
  const error = result.message.length > 160 ? `${result.message.slice(0, 157)}...` : result.message;
  return {
    ok: false,
    message: result.message,
    facts: 0,
    summary: `✗ ${error} · container: ${setup.containerTag} · ${flags}`,
  };
}
