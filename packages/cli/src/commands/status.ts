import fs from 'node:fs';
import {
  type ConfigField,
  type HermesConfig,
  describeError,
  describeSearch,
  type ProbeResult,
  type ProviderHealth,
  createLogger,
  loadHermesConfig,
  providerConfigPaths,
  readProviderConfig,
  resolveEnv,
  silentLogger,
  sqliteSize,
} from '@hermes-memory/core';
import type { Command } from '../command';
import { type CommandContext, parseCommandArgs } from '../context';
import { CliError } from '../errors';
import { formatBytes, table } from '../format';
import { PROBE_TIMEOUT_MS, describeHealth, loadFailureHealth, providerHealth } from '../health';
import { fileInfo, homePaths } from '../paths';
import { openRawDb } from '../portable';
import { providerCliContext, relevantProviderClis } from '../provider-seam';
import { applyHomeEnv, discoverProviders, notFoundMessage } from '../providers';
import { type FieldValue, fieldVisible } from '../setup/schema';

const USAGE = `Usage: hermes-memory status [--probe] [--json]

Show the built-in memory settings, the active memory provider (installed, available, and each of
its environment variables set or not), the secondary providers joined read-only beside it
(memory.secondary), every installed provider, every store's path and size
(providers' stores included), and how full MEMORY.md and USER.md are. When no provider is found,
says where discovery looked.

Each provider's health (ok, degraded, down, unknown; why, and since when) is what this process
can observe: a provider that fails to load is down; nothing is started, so the rest is unknown
unless the provider reports its own view.

Options:
  --probe   also run the active provider's connection probe (reaches its backend once, ${PROBE_TIMEOUT_MS / 1000} s at most)`;

/** Services (systemd, launchd, Docker, cron) start without the agent's .env loading. */
const SERVICE_ENV_NOTE =
  "Services (systemd, launchd, Docker, cron) don't inherit <home>/.env: set these variables in the service's own environment.";

interface StoreStatus {
  name: string;
  path: string;
  exists: boolean;
  bytes: number;
  detail: string;
}

export const statusCommand: Command = {
  name: 'status',
  usage: USAGE,
  async run(ctx, argv) {
    const { values, positionals } = parseCommandArgs(argv, { probe: { type: 'boolean' } }, 'status');
    if (positionals.length > 0) throw new CliError('status takes no arguments.', { exitCode: 2 });
    const config: HermesConfig = loadHermesConfig(ctx.home);
    const m = config.memory;

    const { provider, providers, search } = await providerStatus(ctx, config, values.probe === true);
    const contributed = await providerContributions(ctx, config);
    for (const p of providers) {
      const problem = contributed.problems.get(p.name);
      if (problem) p.cliError = problem;
    }
    const secondary = m.secondary.map((entry) => {
      const installed = providers.find((p) => p.name === entry.provider && !p.error);
      return {
        name: entry.provider,
        installed: installed !== undefined,
        available: installed?.available ?? false,
        health: installed?.health,
        ...(entry.prefetchTimeoutMs ? { prefetchTimeoutMs: entry.prefetchTimeoutMs } : {}),
        ...(contributed.details.has(entry.provider)
          ? { details: contributed.details.get(entry.provider) }
          : {}),
      };
    });
    const details = contributed.details.get(provider.name);
    if (details) provider.details = details;
    const hasMemories = fs.existsSync(homePaths(ctx.home).memoriesDir);
    // Loaded only when there is something to read: a fresh home's status needs no SQLite at all.
    const store = hasMemories
      ? (await import('../stores')).openMemoryStore(ctx.home, { create: false })
      : undefined;
    const usage = (['memory', 'user'] as const).map((target) => {
      const u = store?.usage(target) ?? {
        current: 0,
        limit: target === 'memory' ? m.memoryCharLimit : m.userCharLimit,
      };
      return {
        target,
        entries: store?.entries(target).length ?? 0,
        chars: u.current,
        limit: u.limit,
        percent: u.limit > 0 ? Math.min(100, Math.floor((u.current / u.limit) * 100)) : 0,
      };
    });
    const p = homePaths(ctx.home);
    const stores: StoreStatus[] = [
      fileStore('MEMORY.md', p.memory, `${usage[0]!.entries} entries`),
      fileStore('USER.md', p.user, `${usage[1]!.entries} entries`),
      dbStore('state.db', p.stateDb, [
        ['sessions', 'SELECT COUNT(*) AS n FROM sessions'],
        ['messages', 'SELECT COUNT(*) AS n FROM messages'],
      ]),
      ...contributed.stores,
      fileStore('config.yaml', p.config, ''),
      fileStore('.env', p.env, ''),
    ];

    if (ctx.json) {
      ctx.printJson({
        home: ctx.home,
        homeSource: ctx.homeSource,
        config: {
          memoryEnabled: m.memoryEnabled,
          userProfileEnabled: m.userProfileEnabled,
          memoryCharLimit: m.memoryCharLimit,
          userCharLimit: m.userCharLimit,
          recallBudgetChars: m.recallBudgetChars,
        },
        provider,
        secondary,
        providers,
        ...(providers.length === 0 || (provider.name && !provider.installed) ? { discovery: search } : {}),
        usage,
        stores,
      });
      return 0;
    }
    const s = ctx.style;
    const yes = (b: boolean) => (b ? s.green('✓') : s.red('✗'));
    ctx.out(s.bold('Hermes memory status'));
    ctx.out(
      `  home       ${ctx.home} ${s.gray(`(${ctx.homeSource === 'flag' ? '--home' : ctx.homeSource === 'env' ? 'HERMES_HOME' : 'default'})`)}`,
    );
    ctx.out(`  built-in   memory ${yes(m.memoryEnabled)}  user profile ${yes(m.userProfileEnabled)}`);
    if (!provider.name) ctx.out(`  provider   ${s.gray('(none — built-in only)')}`);
    else {
      ctx.out(
        `  provider   ${s.bold(provider.name)}  installed ${yes(provider.installed)}  available ${yes(provider.available)}`,
      );
      if (provider.reason) ctx.out(`             ${s.yellow(provider.reason)}`);
      if (provider.health) {
        // Not installed or failed to load: the health reason is the line above; say it once.
        const { reason, ...rest } = provider.health;
        const health = reason === provider.reason ? rest : provider.health;
        ctx.out(`             health ${healthText(health, s)}`);
      }
      if (provider.probe)
        ctx.out(
          `             probe ${provider.probe.status === 'ok' ? s.green('ok') : provider.probe.status === 'failed' ? s.red('failed') : s.gray(provider.probe.status)}${provider.probe.latencyMs !== undefined ? s.gray(` (${provider.probe.latencyMs} ms)`) : ''}: ${provider.probe.message}`,
        );
      for (const [key, value] of Object.entries(provider.details ?? {}))
        ctx.out(`             ${s.gray(`${key}:`)} ${String(value)}`);
      for (const [key, value] of Object.entries(provider.config))
        ctx.out(`             ${s.gray(`${key}:`)} ${formatValue(value)}`);
      for (const v of provider.envVars)
        ctx.out(
          `             ${yes(v.set)} ${v.name}${v.required ? '' : s.gray(' (optional)')}${!v.set && v.url ? s.gray(`  get one at ${v.url}`) : ''}`,
        );
      if (provider.envVars.length > 0) ctx.out(`             ${s.gray(SERVICE_ENV_NOTE)}`);
    }
    for (const sec of secondary) {
      const state = !sec.installed
        ? s.red('not installed')
        : `available ${yes(sec.available)}  health ${sec.health ? healthText(sec.health, s) : s.gray('unknown')}`;
      const budget = sec.prefetchTimeoutMs ? s.gray(`  prefetch budget ${sec.prefetchTimeoutMs} ms`) : '';
      ctx.out(`  secondary  ${s.bold(sec.name)}  ${state}${budget}  ${s.gray('(read-only)')}`);
      for (const [key, value] of Object.entries(sec.details ?? {}))
        ctx.out(`             ${s.gray(`${key}:`)} ${String(value)}`);
    }
    if (secondary.length > 0)
      ctx.out(
        `  ${s.gray(`recall budget ${m.recallBudgetChars.toLocaleString('en-US')} chars per turn across providers`)}`,
      );
    ctx.out();
    ctx.out(s.bold('Installed providers'));
    if (providers.length === 0) {
      ctx.out(`  ${s.gray('(none besides built-in)')}`);
      ctx.out(`  ${s.gray(`Discovery ${describeSearch(search)}.`)}`);
    }
    const width = Math.max(0, ...providers.map((p) => p.name.length));
    for (const p of providers) {
      const state = p.error
        ? `${s.red('✗')} ${s.gray(p.error)}`
        : `available ${yes(p.available)}  health ${healthText(p.health, s)}`;
      ctx.out(
        `  ${p.name.padEnd(width)}  ${state}  ${s.gray(p.packageName)}${p.active ? `  ${s.green('← active')}` : ''}${p.secondary ? `  ${s.green('← secondary')}` : ''}`,
      );
      if (p.cliError) ctx.out(`  ${' '.repeat(width)}  ${s.yellow(p.cliError)}`);
    }
    ctx.out();
    ctx.out(s.bold('Memory usage'));
    for (const u of usage) {
      const bar = usageBar(u.percent, s);
      ctx.out(
        `  ${(u.target === 'memory' ? 'MEMORY.md' : 'USER.md').padEnd(10)} ${bar} ${String(u.percent).padStart(3)}%  ${s.gray(`${u.chars.toLocaleString('en-US')}/${u.limit.toLocaleString('en-US')} chars, ${u.entries} entries`)}`,
      );
    }
    ctx.out();
    ctx.out(s.bold('Stores'));
    ctx.out(
      table(
        stores.map((st) => [
          st.name,
          st.exists ? formatBytes(st.bytes).padStart(8) : s.gray('     -  '),
          st.exists ? st.detail : s.gray('not created yet'),
          s.gray(st.path),
        ]),
        { indent: '  ' },
      ),
    );
    return 0;
  },
};

function usageBar(
  percent: number,
  s: { green(t: string): string; yellow(t: string): string; red(t: string): string; gray(t: string): string },
): string {
  const width = 20;
  const filled = Math.round((percent / 100) * width);
  const colour = percent >= 90 ? s.red : percent >= 70 ? s.yellow : s.green;
  return colour('█'.repeat(filled)) + s.gray('░'.repeat(width - filled));
}

interface EnvVarStatus {
  name: string;
  field: string;
  secret: boolean;
  required: boolean;
  set: boolean;
  url?: string;
}

interface InstalledProvider {
  name: string;
  packageName: string;
  active: boolean;
  /** Listed in memory.secondary (joins read-only beside the active provider). */
  secondary: boolean;
  available: boolean;
  /** Runtime health as this process can observe it (decision 0106). */
  health: ProviderHealth;
  error?: string;
  /** Its CLI module failed to load, or its status contribution threw. */
  cliError?: string;
}

/**
 * What providers' CLI modules add (decision 0603): the stores of the active provider, the
 * secondaries and every provider that keeps its data in HERMES_HOME, and the details of the
 * active provider and the secondaries. A module that
 * fails is reported on its provider's line; status itself never fails because of it.
 */
async function providerContributions(ctx: CommandContext, config: HermesConfig) {
  const stores: StoreStatus[] = [];
  const details = new Map<string, Readonly<Record<string, string | number | boolean>>>();
  const problems = new Map<string, string>();
  const { loaded, failed } = await relevantProviderClis(ctx, {
    active: config.memory.provider,
    secondary: config.memory.secondary.map((entry) => entry.provider),
  });
  for (const f of failed) problems.set(f.id, f.error);
  for (const { id, module } of loaded) {
    if (!module.status) continue;
    try {
      const report = await module.status(providerCliContext(ctx, { id, module }, { config }));
      stores.push(...(report.stores ?? []));
      if (report.details) details.set(id, report.details);
    } catch (error) {
      problems.set(id, `status failed: ${describeError(error)}`);
    }
  }
  return { stores, details, problems };
}

/**
 * The active provider (installed? available? which env vars are set?) and every installed provider,
 * each loaded to ask `isAvailable()` with `<home>/.env` applied, as the agent would see it.
 */
async function providerStatus(ctx: CommandContext, config: HermesConfig, probe: boolean) {
  const name = config.memory.provider;
  applyHomeEnv(ctx.home, ctx.io.env);
  const env = resolveEnv(ctx.home, ctx.io.env);
  const { loaded, broken, search } = await discoverProviders(ctx.io.cwd, ctx.home);
  const logger = ctx.io.env.HERMES_MEMORY_DEBUG
    ? createLogger({ level: 'debug', sink: (r) => ctx.err(`${r.level.toUpperCase()} ${r.message}`) })
    : silentLogger;
  let activeProbe: ProbeResult | undefined;
  const providers: InstalledProvider[] = [
    ...(await Promise.all(
      loaded.map(async (p) => {
        // Only the active provider is probed: an inactive backend is not contacted.
        const view = await providerHealth(p.provider, {
          probe: probe && p.name === name,
          logger,
          signal: ctx.signal,
        });
        if (view.probe) activeProbe = view.probe;
        return {
          name: p.name,
          packageName: p.packageName,
          active: p.name === name,
          secondary: config.memory.secondary.some((e) => e.provider === p.name),
          available: safeAvailable(p.provider),
          health: view.health,
        };
      }),
    )),
    ...broken.map((b) => ({
      name: b.name,
      packageName: b.packageName,
      active: b.name === name,
      secondary: config.memory.secondary.some((e) => e.provider === b.name),
      available: false,
      health: loadFailureHealth(b.error),
      error: b.error,
    })),
  ].sort((a, b) => a.name.localeCompare(b.name));

  const provider = {
    name,
    installed: !name,
    available: !name,
    reason: '',
    config: {} as Record<string, unknown>,
    details: undefined as Readonly<Record<string, string | number | boolean>> | undefined,
    health: providers.find((p) => p.active)?.health,
    probe: activeProbe,
    envVars: [] as EnvVarStatus[],
  };
  if (!name) return { provider, providers, search };
  const active = loaded.find((p) => p.name === name);
  if (!active) {
    provider.reason = broken.find((b) => b.name === name)?.error ?? notFoundMessage(name, search);
    provider.health ??= loadFailureHealth(provider.reason);
    return { provider, providers, search };
  }
  provider.installed = true;
  provider.available = safeAvailable(active.provider);
  if (!provider.available) provider.reason = active.provider.unavailableReason() || 'not available';
  let fields: ConfigField[] = [];
  try {
    fields = active.provider.getConfigSchema();
  } catch {}
  const secretKeys = new Set(fields.filter((f) => f.secret).map((f) => f.key));
  const saved = readProviderConfig(config, providerConfigPaths(active.provider)).values as Record<
    string,
    FieldValue
  >;
  for (const [key, value] of Object.entries(saved)) if (!secretKeys.has(key)) provider.config[key] = value;
  // Only fields that apply to the saved settings (a cloud key is irrelevant in local mode).
  provider.envVars = fields
    .filter((f): f is ConfigField & { envVar: string } => typeof f.envVar === 'string')
    .filter((f) => fieldVisible(f, saved))
    .map((f) => ({
      name: f.envVar,
      field: f.key,
      secret: f.secret === true,
      required: f.required === true,
      set: (env[f.envVar] ?? '') !== '',
      ...(f.url ? { url: f.url } : {}),
    }));
  return { provider, providers, search };
}

function healthText(health: ProviderHealth, s: CommandContext['style']): string {
  const text = describeHealth(health);
  if (health.status === 'ok') return s.green(text);
  if (health.status === 'degraded') return s.yellow(text);
  if (health.status === 'down') return s.red(text);
  return s.gray(text);
}

function safeAvailable(provider: { isAvailable(): boolean }): boolean {
  try {
    return provider.isAvailable();
  } catch {
    return false;
  }
}

function formatValue(value: unknown): string {
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

function fileStore(name: string, file: string, detail: string): StoreStatus {
  const info = fileInfo(file);
  return { name, path: file, exists: info.exists, bytes: info.size, detail };
}

function dbStore(name: string, file: string, counts: Array<[string, string]>): StoreStatus {
  if (!fs.existsSync(file)) return { name, path: file, exists: false, bytes: 0, detail: '' };
  let detail: string;
  try {
    const db = openRawDb(file, { readonly: true });
    try {
      detail = counts
        .map(([label, sql]) => {
          try {
            return `${(db.prepare(sql).get() as { n: number }).n} ${label}`;
          } catch {
            return `? ${label}`;
          }
        })
        .join(', ');
    } finally {
      db.close();
    }
  } catch (error) {
    detail = `unreadable: ${error instanceof Error ? error.message : String(error)}`;
  }
  return { name, path: file, exists: true, bytes: sqliteSize(file), detail };
}
