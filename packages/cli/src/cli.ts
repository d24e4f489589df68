import type { Command, CommandEntry } from './command';
import { createContext, extractGlobalOptions } from './context';
import { CliError, oneLine } from './errors';
import { type CliIO, processIO } from './io';
import { CLI_VERSION } from './version';

/**
 * Every command, loaded on demand: `--help` and light commands never import better-sqlite3,
 * holographic or the MCP SDK (the build splits each command into its own chunk).
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
    name: 'facts',
    summary: 'add, search, probe, rate and list holographic facts; reindex, embed',
    load: async () => (await import('./commands/facts')).factsCommand,
  },
  {
    name: 'export',
    summary: 'export all local memory as JSON Lines',
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

const GLOBAL_HELP = `Global options:
  --home <dir>   HERMES_HOME to use (default: $HERMES_HOME, else ~/.hermes)
  --json         machine-readable output on stdout
  --no-color     no ANSI colours (also: NO_COLOR=1)
  -h, --help     show help
  -V, --version  print the version`;

export function mainHelp(): string {
  const width = Math.max(...COMMAND_TABLE.map((c) => c.name.length));
  const list = COMMAND_TABLE.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n');
  return `hermes-memory ${CLI_VERSION} — layered long-term memory for agents (Hermes-compatible)

Usage: hermes-memory <command> [options]

Commands:
${list}

${GLOBAL_HELP}

Run 'hermes-memory <command> --help' for a command's options.`;
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
    if (name === undefined || name === 'help') {
      const entry = name === 'help' ? COMMAND_TABLE.find((c) => c.name === args[0]) : undefined;
      const target: Command | undefined = entry ? await entry.load() : undefined;
      io.stdout(`${target ? target.usage : mainHelp()}\n`);
      return name === undefined && !globals.help ? 2 : 0;
    }
    const entry = COMMAND_TABLE.find((c) => c.name === name);
    if (!entry) {
      throw new CliError(`Unknown command '${name}'.`, {
        exitCode: 2,
        hint: `Commands: ${COMMAND_TABLE.map((c) => c.name).join(', ')}.`,
      });
    }
    const command = await entry.load();
    if (globals.help) {
      io.stdout(`${command.usage}\n\n${GLOBAL_HELP}\n`);
      return 0;
    }
    const ctx = createContext(io, globals);
    return await command.run(ctx, args);
  } catch (error) {
    const hint = error instanceof CliError && error.hint ? ` ${error.hint}` : '';
    io.stderr(`hermes-memory: ${oneLine(error)}${hint}\n`);
    if (io.env.HERMES_MEMORY_DEBUG && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`);
    return error instanceof CliError ? error.exitCode : 1;
  }
}
