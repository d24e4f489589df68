import type { CommandContext } from './context';

/** One `hermes-memory <name>` command. Each lives in its own file under `src/commands/`. */
export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Full usage text for `hermes-memory <name> --help`. */
  usage: string;
  /** Returns the process exit code. Throws CliError (or anything) for a one-line failure. */
  run(ctx: CommandContext, argv: string[]): Promise<number>;
}
