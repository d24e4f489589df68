import type { Command } from './command';
import { exportCommand } from './commands/export';
import { doctorCommand } from './commands/doctor';
import { factsCommand } from './commands/facts';
import { importCommand } from './commands/import';
import { mcpCommand } from './commands/mcp';
import { memoryCommand } from './commands/memory';
import { sessionsCommand } from './commands/sessions';
import { setupCommand } from './commands/setup';
import { statusCommand } from './commands/status';
import { createContext, extractGlobalOptions } from './context';
import { CliError, oneLine } from './errors';
import { type CliIO, processIO } from './io';
import { CLI_VERSION } from './version';

export const COMMANDS: readonly Command[] = [
  statusCommand,
  setupCommand,
  doctorCommand,
  memoryCommand,
  sessionsCommand,
  factsCommand,
  exportCommand,
  importCommand,
  mcpCommand,
];

const GLOBAL_HELP = `Global options:
  --home <dir>   HERMES_HOME to use (default: $HERMES_HOME, else ~/.hermes)
  --json         machine-readable output on stdout
  --no-color     no ANSI colours (also: NO_COLOR=1)
  -h, --help     show help
  -V, --version  print the version`;

export function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const list = COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n');
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
      const target = name === 'help' ? COMMANDS.find((c) => c.name === args[0]) : undefined;
      io.stdout(`${target ? target.usage : mainHelp()}\n`);
      return name === undefined && !globals.help ? 2 : 0;
    }
    const command = COMMANDS.find((c) => c.name === name);
    if (!command) {
      throw new CliError(`Unknown command '${name}'.`, {
        exitCode: 2,
        hint: `Commands: ${COMMANDS.map((c) => c.name).join(', ')}.`,
      });
    }
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
