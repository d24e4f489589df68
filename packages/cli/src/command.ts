import type { CommandContext } from './context';

/**
 * One `hermes-memory <name>` command. Each lives in its own file under `src/commands/` and is
 * imported only when it runs (see `COMMAND_TABLE` in cli.ts), so startup stays cheap.
 */
export interface Command {
  name: string;
  /** Full usage text for `hermes-memory <name> --help`. */
  usage: string;
  /** Returns the process exit code. Throws CliError (or anything) for a one-line failure. */
  run(ctx: CommandContext, argv: string[]): Promise<number>;
}

/** An entry of the command table: what `--help` needs, plus how to load the rest. */
export interface CommandEntry {
  name: string;
  /** One line for the command list. */
  summary: string;
  load(): Promise<Command>;
}
