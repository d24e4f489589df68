import {
  type HermesConfig,
  type ProviderCliContext,
  type ProviderCliModule,
  type ProviderPackage,
  createLogger,
  describeError,
  loadHermesConfig,
  loadProviderCli,
  readProviderConfig,
  resolveEnv,
} from '@hermes-memory/core';
import { type CommandContext, parseCommandArgs } from './context';
import { CliError, usageError } from './errors';
import { findProviderPackages, loadProvider, notFoundMessage } from './providers';
import { type Prompter, clackPrompter } from './setup/prompter';

/**
 * The CLI side of the provider seam (decision 0603): find a provider's CLI module through core's
 * discovery, import it only when needed, and hand it a `ProviderCliContext` built from this run.
 * Nothing here names a backend.
 */

export interface LoadedProviderCli {
  id: string;
  packageName: string;
  module: ProviderCliModule;
}

export interface FailedProviderCli {
  id: string;
  packageName: string;
  error: string;
}

/** Installed providers that declare a CLI module (no import): for help listings. */
export function providersWithCli(ctx: Pick<CommandContext, 'home' | 'io'>): ProviderPackage[] {
  return findProviderPackages(ctx.io.cwd, ctx.home).packages.filter((p) => p.cli);
}

/**
 * The CLI module of a provider named on the command line (`hermes-memory <id> …`). Not installed,
 * no CLI module, or a module that fails to load: a one-line CliError that says which.
 */
export async function requireProviderCli(ctx: CommandContext, id: string): Promise<LoadedProviderCli> {
  const { packages, search } = findProviderPackages(ctx.io.cwd, ctx.home);
  const pkg = packages.find((p) => p.name === id);
  if (!pkg) throw new CliError(notFoundMessage(id, search));
  return loadOrThrow(pkg);
}

async function loadOrThrow(pkg: ProviderPackage): Promise<LoadedProviderCli> {
  const result = await loadProviderCli(pkg);
  if (result.status === 'none')
    throw new CliError(`Memory provider '${pkg.name}' (${pkg.packageName}) has no command-line module.`);
  if (result.status === 'failed')
    throw new CliError(
      `The command-line module of memory provider '${pkg.name}' failed to load: ${firstLine(describeError(result.error))}`,
    );
  return { id: pkg.name, packageName: pkg.packageName, module: result.module };
}

/**
 * The CLI modules `status`, `doctor` and `export` consult: the active provider's, the secondaries'
 * (`memory.secondary`, when installed: a missing one is reported by status itself), those named
 * explicitly, and every installed provider whose data lives in HERMES_HOME (`localData` in its
 * manifest), so a store stays visible and backed up after the user switches providers. Any other
 * provider's module is never imported. Named providers must exist (CliError otherwise); a module
 * that fails to load is reported in `failed`, never thrown.
 */
export async function relevantProviderClis(
  ctx: CommandContext,
  options: { active: string; secondary?: readonly string[]; named?: readonly string[] },
): Promise<{ loaded: LoadedProviderCli[]; failed: FailedProviderCli[] }> {
  const { packages, search } = findProviderPackages(ctx.io.cwd, ctx.home);
  for (const id of options.named ?? [])
    if (!packages.some((p) => p.name === id)) throw new CliError(notFoundMessage(id, search));
  const wanted = new Set(
    [options.active, ...(options.secondary ?? []), ...(options.named ?? [])].filter(Boolean),
  );
  const loaded: LoadedProviderCli[] = [];
  const failed: FailedProviderCli[] = [];
  for (const pkg of packages) {
    if (!pkg.cli || !(wanted.has(pkg.name) || pkg.localData)) continue;
    const result = await loadProviderCli(pkg);
    if (result.status === 'failed')
      failed.push({
        id: pkg.name,
        packageName: pkg.packageName,
        error: firstLine(describeError(result.error)),
      });
    else if (result.status === 'loaded')
      loaded.push({ id: pkg.name, packageName: pkg.packageName, module: result.module });
  }
  return { loaded, failed };
}

/**
 * What a provider's CLI module sees of this run. Its settings are read from every place the module
 * lists in `configPaths` (as its provider's `configPaths()`), first place winning.
 */
export function providerCliContext(
  ctx: CommandContext,
  loaded: { id: string; module: Pick<ProviderCliModule, 'configPaths'> },
  options: { command?: string; config?: HermesConfig } = {},
): ProviderCliContext {
  const id = loaded.id;
  const config = options.config ?? loadHermesConfig(ctx.home);
  const commandName = options.command ? `${id} ${options.command}` : id;
  const logger = createLogger({
    level: ctx.io.env.HERMES_MEMORY_DEBUG ? 'debug' : 'warn',
    name: `hermes-memory ${id}`,
    sink: (record) =>
      ctx.io.stderr(`${record.level.toUpperCase()} [hermes-memory ${id}] ${record.message}\n`),
  });
  return {
    providerId: id,
    home: ctx.home,
    config,
    providerConfig: readProviderConfig(config, loaded.module.configPaths ?? [`memory.${id}`]).values,
    env: resolveEnv(ctx.home, ctx.io.env),
    json: ctx.json,
    interactive: ctx.interactive,
    style: ctx.style,
    logger,
    signal: ctx.signal,
    // The same rule as `setup`: an injected prompter (front ends, tests) counts as a terminal.
    ...(ctx.json ? {} : prompterFor(ctx)),
    out: (line) => ctx.out(line),
    err: (line) => ctx.err(line),
    printJson: (value) => ctx.printJson(value),
    progress: (label, total) => ctx.progress(label, total),
    parseArgs: (argv, argOptions) => parseCommandArgs(argv, argOptions, commandName),
    usageError: (message, hint) => usageError(message, hint ?? `See 'hermes-memory ${commandName} --help'.`),
    fail: (message, hint) => new CliError(message, hint ? { hint } : {}),
    loadProvider: async () => (await loadProvider(id, ctx.io.cwd, ctx.home)).provider,
  };
}

function prompterFor(ctx: CommandContext): { prompter?: Prompter } {
  const prompter = ctx.io.prompter ?? (ctx.interactive ? clackPrompter() : undefined);
  return prompter ? { prompter } : {};
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? text).trim();
}
