/**
 * The `hermes-memory honcho …` commands that talk to Honcho: `status` (settings and health; the
 * network only with `--probe`), `test` (the connection test), `identity` (show both peers'
 * representations, or seed the AI peer from a file) and `migrate` (upload the memory files now).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  type ProbeResult,
  type ProviderCliContext,
  type ProviderCommand,
  redactSecrets,
} from '@hermes-memory/core';
import { credentialFingerprint } from '../auth/credential';
import { clientFor, probeHoncho } from '../client/probe';
import { isConfigured } from '../config/resolve';
import type { HonchoConfig } from '../config/types';
import { guardWrite } from '../guard';
import { migrateMemoryFiles, sdkMigrationRemote } from '../session/migration';
import { honchoMessagesOnDisk } from '../session/outbox';
import { loadConfig } from './honcho-file';
import { type Connected, connect, sessionName } from './identity';

/** Why Honcho would not start, in words (empty when it would). */
function notConfiguredReason(config: HonchoConfig): string {
  if (isConfigured(config)) return '';
  if (!config.enabled && (config.apiKey || config.baseUrl)) return 'Honcho is disabled (enabled: false).';
  return 'no API key (HONCHO_API_KEY or apiKey in honcho.json) and no baseUrl.';
}

/** The connection test: one metadata read, no retries. */
export async function testConnection(ctx: ProviderCliContext, config: HonchoConfig): Promise<ProbeResult> {
  const reason = notConfiguredReason(config);
  if (reason) return { status: 'skipped', message: reason };
  try {
    return await probeHoncho(clientFor(config, { maxRetries: 0 }), ctx.signal);
  } catch (error) {
    // Settings the SDK refuses (a bad workspace id) fail before any request.
    return { status: 'failed', message: error instanceof Error ? error.message : String(error) };
  }
}

/** Which credential is in force, named without revealing it. */
export function describeCredential(config: HonchoConfig, nowMs = Date.now()): string {
  if (config.oauth) {
    const minutes = Math.round((config.oauth.expiresAt - nowMs) / 60_000);
    const when =
      minutes > 0 ? `access token expires in ${minutes} min` : 'access token expired (refreshed on use)';
    return `OAuth sign-in ${credentialFingerprint(config.oauth.refreshToken)} (${when})`;
  }
  if (config.apiKey)
    return `API key ${credentialFingerprint(config.apiKey)} (${config.apiKeyInFile ? 'honcho.json' : 'environment'})`;
  return 'none';
}

/** The settings `status` shows: never the key itself, only where it comes from. */
export function statusDetails(
  config: HonchoConfig,
  cwd: string,
  hermesHome?: string,
): Record<string, string | number | boolean> {
  const configured = isConfigured(config);
  return {
    config: config.configPath ?? 'environment only',
    host: config.host,
    enabled: configured,
    workspace: config.workspaceId,
    // A password or token written into the URL is never shown.
    baseUrl: redactSecrets(
      config.baseUrl ?? (config.environment === 'local' ? 'http://localhost:8000' : 'https://api.honcho.dev'),
    ),
    apiKey: config.oauth
      ? 'OAuth sign-in (honcho.json)'
      : config.apiKey
        ? config.apiKeyInFile
          ? 'set (honcho.json)'
          : 'set (environment)'
        : 'not set',
    credential: describeCredential(config),
    userPeer: config.peerName ?? '(derived from the chat)',
    aiPeer: config.aiPeer,
    session: sessionName(config, cwd),
    recallMode: config.recallMode,
    writeFrequency: String(config.writeFrequency),
    sessionStrategy: config.sessionStrategy,
    observationMode: config.observationMode,
    contextTokens: config.contextTokens ?? 'uncapped',
    dialecticCadence: config.dialecticCadence,
    dialecticReasoningLevel: config.dialecticReasoningLevel,
    // Messages an outage left undelivered (decision 0115): the next agent start sends them.
    ...(hermesHome !== undefined ? { waitingOnDisk: honchoMessagesOnDisk(hermesHome) } : {}),
  };
}

const status: ProviderCommand = {
  name: 'status',
  summary: 'show the Honcho settings in force and their health (--probe: test the connection)',
  usage:
    'Usage: hermes-memory honcho status [--probe]\n\n' +
    'Health comes from the settings alone (no network) unless --probe runs the connection test.',
  async run(ctx, argv) {
    const { values } = ctx.parseArgs(argv, { probe: { type: 'boolean' } });
    const config = loadConfig(ctx);
    const details = statusDetails(config, process.cwd(), ctx.home);
    const reason = notConfiguredReason(config);
    const probe = values.probe ? await testConnection(ctx, config) : undefined;
    const health = reason
      ? { status: 'down', reason }
      : probe
        ? probe.status === 'ok'
          ? { status: 'ok', reason: probe.message, latencyMs: probe.latencyMs ?? null }
          : { status: 'down', reason: probe.message }
        : { status: 'unknown', reason: 'configured; not contacted (use --probe to test the connection)' };
    if (ctx.json) {
      ctx.printJson({ provider: 'honcho', health, details, warnings: config.warnings });
    } else {
      const mark =
        health.status === 'ok'
          ? ctx.style.green('ok')
          : health.status === 'down'
            ? ctx.style.red('down')
            : ctx.style.yellow('unknown');
      ctx.out(`Honcho: ${mark} — ${health.reason}`);
      for (const [key, value] of Object.entries(details)) ctx.out(`  ${key.padEnd(24)}${value}`);
      for (const warning of config.warnings) ctx.out(ctx.style.yellow(`  warning: ${warning}`));
    }
    return health.status === 'down' && values.probe ? 1 : 0;
  },
};

const test: ProviderCommand = {
  name: 'test',
  summary: 'test the connection to Honcho with the settings in force',
  usage: 'Usage: hermes-memory honcho test',
  async run(ctx, argv) {
    ctx.parseArgs(argv, {});
    const result = await testConnection(ctx, loadConfig(ctx));
    if (ctx.json) ctx.printJson(result);
    else {
      const mark = result.status === 'ok' ? ctx.style.green('✓') : ctx.style.red('✗');
      ctx.out(`${mark} ${result.message}`);
    }
    return result.status === 'ok' ? 0 : 1;
  },
};

function requireConnection(ctx: ProviderCliContext, config: HonchoConfig): Connected {
  const connected = connect(config, process.cwd());
  if (!connected)
    throw ctx.fail(
      `Honcho is not configured: ${notConfiguredReason(config)}`,
      "Run 'hermes-memory honcho setup'.",
    );
  return connected;
}

const identity: ProviderCommand = {
  name: 'identity',
  summary: "show both peers' representations (--show), or seed the AI peer's identity from a file",
  usage:
    'Usage: hermes-memory honcho identity --show\n' +
    '       hermes-memory honcho identity <file>   seed the AI peer from SOUL.md or any .md/.txt',
  async run(ctx, argv) {
    const { values, positionals } = ctx.parseArgs(argv, { show: { type: 'boolean' } });
    const config = loadConfig(ctx);
    const file = positionals[0];
    if (!values.show && file === undefined) throw ctx.usageError('Give --show or a file to seed from.');
    const c = requireConnection(ctx, config);
    if (values.show) {
      const [user, ai] = await Promise.all([
        c.backend.peerView(c.userObserver, c.user, undefined, ctx.signal),
        c.backend.peerView(c.ai, c.ai, undefined, ctx.signal),
      ]);
      const view = {
        user: { peer: c.user, representation: user.representation, card: user.card },
        ai: { peer: c.ai, representation: ai.representation, card: ai.card },
      };
      if (ctx.json) ctx.printJson(view);
      else {
        ctx.out(`User peer (${c.user})`);
        ctx.out(
          user.card.length > 0 ? user.card.map((f) => `  ${f}`).join('\n') : '  No user peer card yet.',
        );
        ctx.out(`AI peer (${c.ai})`);
        ctx.out(
          ai.representation ||
            ai.card.join('\n') ||
            "  No representation yet. Seed one with 'hermes-memory honcho identity <file>'.",
        );
      }
      return 0;
    }
    const source = path.resolve(file!);
    if (!existsSync(source)) throw ctx.fail(`File not found: ${source}`);
    const content = readFileSync(source, 'utf8').trim();
    if (!content) throw ctx.fail(`File is empty: ${source}`);
    // The seed becomes the AI peer's representation, which is injected: the scanner judges it first.
    const guarded = guardWrite(content);
    if (!guarded.ok) throw ctx.fail(`${path.basename(source)} was not seeded: ${guarded.error}`);
    await c.backend.openSession(c.session, c.user, c.ai, config.observation, ctx.signal);
    const name = path.basename(source);
    const text = `<ai_identity_seed source="${name.replace(/["<>]/g, '')}">\n${guarded.text}\n</ai_identity_seed>\n`;
    await c.backend.uploadText(
      c.session,
      c.ai,
      name,
      text,
      { source: 'hermes_identity_seed', original_file: name },
      ctx.signal,
    );
    if (ctx.json) ctx.printJson({ seeded: name, peer: c.ai, session: c.session });
    else ctx.out(`Seeded the AI peer '${c.ai}' from ${name} in session '${c.session}'.`);
    return 0;
  },
};

const migrate: ProviderCommand = {
  name: 'migrate',
  summary: 'upload memories/MEMORY.md, USER.md and SOUL.md to Honcho now (once each, per the ledger)',
  usage:
    'Usage: hermes-memory honcho migrate\n\n' +
    'The agent does this by itself on the first session with Honcho; this runs it now. Each file goes\n' +
    "up once per endpoint, workspace and peers (state/honcho_migration.json, the Python agent's ledger,\n" +
    'and its migration_id looked up in the marker session first, so a lost ledger entry is recorded,\n' +
    'not uploaded again); a file the write scanner blocks, or whose lookup or upload fails, is left.',
  async run(ctx, argv) {
    ctx.parseArgs(argv, {});
    const config = loadConfig(ctx);
    const c = requireConnection(ctx, config);
    const opened = await c.backend.openSession(c.session, c.user, c.ai, config.observation, ctx.signal);
    const off = (kind: 'user' | 'ai') =>
      config.observation[`${kind}ObserveMe`] === false || opened.observation[`${kind}ObserveMe`] === false;
    const result = await migrateMemoryFiles({
      hermesHome: ctx.home,
      endpoint: c.backend.client.baseUrl,
      workspaceId: c.backend.workspaceId,
      userPeerId: c.user,
      aiPeerId: c.ai,
      remote: sdkMigrationRemote(
        c.backend,
        { userPeerId: c.user, aiPeerId: c.ai, optOut: { user: off('user'), ai: off('ai') } },
        ctx.signal,
      ),
    });
    if (ctx.json) ctx.printJson({ session: c.session, ...result });
    else {
      if (result.uploaded.length > 0) ctx.out(`Uploaded ${result.uploaded.join(', ')}.`);
      if (result.reconciled.length > 0)
        ctx.out(`Already in Honcho (recorded, not uploaded again): ${result.reconciled.join(', ')}.`);
      if (result.uploaded.length + result.reconciled.length === 0)
        ctx.out('Nothing to upload (no memory files, or all already migrated).');
      for (const { file, error } of [...result.refused, ...result.failed])
        ctx.err(`${file} was not uploaded: ${error}`);
    }
    return result.refused.length + result.failed.length > 0 ? 1 : 0;
  },
};

export const CONNECTION_COMMANDS: readonly ProviderCommand[] = [status, test];
export const PEER_DATA_COMMANDS: readonly ProviderCommand[] = [identity, migrate];
