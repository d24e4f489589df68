import fs from 'node:fs';
import { type ProviderPackage, loadHermesConfig } from '@hermes-memory/core';
import type { Command, CommandEntry } from './command';
import type { ProviderAlias } from './commands/provider';
import { type CommandContext, createContext, extractGlobalOptions } from './context';
import { CliError, oneLine } from './errors';
import { type CliIO, processIO } from './io';
import { findProviderPackages, loadProvider } from './providers';
import { CLI_VERSION } from './version';

/**
 * Every command, loaded on demand: `--help` and light commands never import better-sqlite3, a
 * provider or the MCP SDK (the build splits each command into its own chunk). Providers add their
 * own commands as `hermes-memory <provider> …` through their CLI modules (decision 0603).
 */
export const COMMAND_TABLE: readonly CommandEntry[] = [
  {
    name: 'status',
    summary: 'provider, installed providers, store paths and sizes, memory usage',
    load: async () => (await import('./commands/status')).statusCommand,
  },
  {
    name: 'setup',
    summary: 'choose and configure the memory provider (wizard, --set for scripts, --off)',
    load: async () => (await import('./commands/setup')).setupCommand,
  },
  {
    name: 'doctor',
    summary: 'check the installation and the stores, and say how to fix problems',
    load: async () => (await import('./commands/doctor')).doctorCommand,
  },
  {
    name: 'memory',
    summary: 'list, add, replace or remove MEMORY.md / USER.md entries',
    load: async () => (await import('./commands/memory')).memoryCommand,
  },
  {
    name: 'sessions',
    summary: 'list, search and show recorded sessions (state.db)',
    load: async () => (await import('./commands/sessions')).sessionsCommand,
  },
  {
    name: 'export',
    summary: 'export all local memory (built-in and providers) as JSON Lines',
    load: async () => (await import('./commands/export')).exportCommand,
  },
  {
    name: 'import',
    summary: 'import a JSON Lines export into this home',
    load: async () => (await import('./commands/import')).importCommand,
  },
  {
    name: 'mcp',
    summary: 'serve memory tools and the snapshot over MCP (stdio or --http)',
    load: async () => (await import('./commands/mcp')).mcpCommand,
  },
];

/** Old top-level commands that moved into a provider's CLI, kept for one release. */
export const PROVIDER_ALIASES: readonly ProviderAlias[] = [
  { name: 'facts', provider: 'holographic', removedIn: '0.3.0' },
];

const GLOBAL_HELP = `Global options:
  --home <dir>   HERMES_HOME to use (default: $HERMES_HOME, else ~/.hermes)
  --json         machine-readable output on stdout
  --no-color     no ANSI colours (also: NO_COLOR=1)
  -h, --help     show help
  -V, --version  print the version`;

/** The command list, then the installed providers that bring commands (no provider is imported). */
export function mainHelp(providers: readonly ProviderPackage[] = []): string {
  const rows: Array<[string, string]> = [
    ...COMMAND_TABLE.map((c): [string, string] => [c.name, c.summary]),
    ...PROVIDER_ALIASES.map((a): [string, string] => [
      a.name,
      `deprecated: use 'hermes-memory ${a.provider} …' (removed in ${a.removedIn})`,
    ]),
  ];
  const provided: Array<[string, string]> = providers.map((p) => [p.name, `${p.packageName} commands`]);
  const width = Math.max(...[...rows, ...provided].map(([name]) => name.length));
  const list = (entries: Array<[string, string]>) =>
    entries.map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`).join('\n');
  const providerSection =
    provided.length > 0 ? `\n\nProvider commands (hermes-memory <provider> --help):\n${list(provided)}` : '';
  return `hermes-memory ${CLI_VERSION} — layered long-term memory for agents (Hermes-compatible)

Usage: hermes-memory <command> [options]

Commands:
${list(rows)}${providerSection}

${GLOBAL_HELP}

Run 'hermes-memory <command> --help' for a command's options.`;
}

/** Installed providers with a CLI module, for help; a discovery failure never breaks help. */
function providerCommandPackages(ctx: CommandContext): ProviderPackage[] {
  try {
    return findProviderPackages(ctx.io.cwd, ctx.home).packages.filter((p) => p.cli);
  } catch {
    return [];
  }
}

/** `hermes-memory <provider> …` or a deprecated alias; anything else is an unknown command. */
async function runProvider(
  ctx: CommandContext,
  name: string,
  args: string[],
  help: boolean,
): Promise<number> {
  const alias = PROVIDER_ALIASES.find((a) => a.name === name);
  const id = alias?.provider ?? name;
  if (!alias && !findProviderPackages(ctx.io.cwd, ctx.home).packages.some((p) => p.name === id)) {
    // The provider config.yaml names but this install lacks (a Python home's honcho): say that, and
    // where discovery looked, rather than "unknown command".
    if (configuredProvider(ctx.home) === id) await loadProvider(id, ctx.io.cwd, ctx.home);
    const providers = providerCommandPackages(ctx).map((p) => p.name);
    throw new CliError(`Unknown command '${name}'.`, {
      exitCode: 2,
      hint: `Commands: ${[...COMMAND_TABLE.map((c) => c.name), ...providers].join(', ')}.`,
    });
  }
  const { runProviderCommand } = await import('./commands/provider');
  return runProviderCommand(ctx, id, args, { help, globalHelp: GLOBAL_HELP, ...(alias ? { alias } : {}) });
}

/**
 * A home that exists but is a file: one clear error up front, instead of each command's own
 * ENOTDIR on config.yaml, or "No sessions recorded yet." as if the home were empty.
 */
function assertHomeIsDirectory(home: string): void {
  let isDirectory = true;
  try {
    isDirectory = fs.statSync(home).isDirectory();
  } catch {} // missing: created on first write; unreadable: the command says why
  if (!isDirectory)
    throw new CliError(`HERMES_HOME ${home} is not a directory.`, {
      exitCode: 2,
      hint: 'Point --home or HERMES_HOME at a directory.',
    });
}

/** `memory.provider` from config.yaml, or undefined when there is none or the file is unreadable. */
function configuredProvider(home: string): string | undefined {
  try {
    return loadHermesConfig(home).memory.provider || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Run the CLI with `argv` (without the node and script paths). Resolves to the exit code; never
 * throws and never prints a stack trace (set HERMES_MEMORY_DEBUG=1 to see one).
 */
export async function runCli(argv: readonly string[], io: CliIO = processIO()): Promise<number> {
  try {
    const { globals, rest } = extractGlobalOptions(argv);
    if (globals.version) {
      io.stdout(`${CLI_VERSION}\n`);
      return 0;
    }
    const [name, ...args] = rest;
    const ctx = createContext(io, globals);
    if (name === 'help' && args[0] !== undefined && !COMMAND_TABLE.some((c) => c.name === args[0]))
      return await runProvider(ctx, args[0], ['help', ...args.slice(1)], false);
    if (name === undefined || name === 'help') {
      const entry = name === 'help' ? COMMAND_TABLE.find((c) => c.name === args[0]) : undefined;
      const target: Command | undefined = entry ? await entry.load() : undefined;
      io.stdout(`${target ? target.usage : mainHelp(providerCommandPackages(ctx))}\n`);
      return name === undefined && !globals.help ? 2 : 0;
    }
    const entry = COMMAND_TABLE.find((c) => c.name === name);
    if (!entry) {
      if (!globals.help) assertHomeIsDirectory(ctx.home);
      return await runProvider(ctx, name, args, globals.help);
    }
    const command = await entry.load();
    if (globals.help) {
      io.stdout(`${command.usage}\n\n${GLOBAL_HELP}\n`);
      return 0;
    }
    if (entry.name !== 'doctor') assertHomeIsDirectory(ctx.home); // doctor reports it as a check
    return await command.run(ctx, args);
  } catch (error) {
    // Recognised by brand, so a provider module built against another copy of core keeps its exit code.
    const hint = CliError.isInstance(error) && error.hint ? ` ${error.hint}` : '';
    io.stderr(`hermes-memory: ${oneLine(error)}${hint}\n`);
    if (io.env.HERMES_MEMORY_DEBUG && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`);
    return CliError.isInstance(error) ? error.exitCode : 1;
  }
}
