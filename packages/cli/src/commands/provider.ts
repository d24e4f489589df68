import type { CommandContext } from '../context';
import { CliError, usageError } from '../errors';
import { table } from '../format';
import { type LoadedProviderCli, providerCliContext, requireProviderCli } from '../provider-seam';

/** A deprecated top-level command that now lives in a provider's CLI module. */
export interface ProviderAlias {
  name: string;
  provider: string;
  /** The release that removes the alias. */
  removedIn: string;
}

/**
 * `hermes-memory <id> [command] [args]`: a provider's own commands, from its CLI module (imported
 * here, not before). Without a command (or with `--help`) it lists them.
 */
export async function runProviderCommand(
  ctx: CommandContext,
  id: string,
  argv: readonly string[],
  options: { help: boolean; globalHelp: string; alias?: ProviderAlias },
): Promise<number> {
  const alias = options.alias;
  if (alias)
    ctx.err(
      `hermes-memory: '${alias.name}' is deprecated and will be removed in ${alias.removedIn}; use 'hermes-memory ${id} …'.`,
    );
  let loaded: LoadedProviderCli;
  try {
    loaded = await requireProviderCli(ctx, id);
  } catch (error) {
    if (alias && CliError.isInstance(error))
      throw new CliError(`'${alias.name}' moved to ${id}'s own CLI. ${error.message}`, {
        ...(error.hint ? { hint: error.hint } : {}),
      });
    throw error;
  }
  const invoked = alias ? alias.name : id;
  const [name, ...rest] = argv;
  const commands = loaded.module.commands ?? [];
  if (name === undefined || name === 'help') {
    const target = name === 'help' ? commands.find((c) => c.name === rest[0]) : undefined;
    ctx.out(target ? target.usage : providerHelp(loaded, invoked));
    return name === undefined && !options.help ? 2 : 0;
  }
  const command = commands.find((c) => c.name === name);
  if (!command)
    throw usageError(
      commands.length > 0
        ? `Unknown command '${name}' for ${id}. Use: ${commands.map((c) => c.name).join(', ')}.`
        : `Memory provider '${id}' has no commands.`,
      `See 'hermes-memory ${invoked} --help'.`,
    );
  if (options.help) {
    ctx.out(`${command.usage}\n\n${options.globalHelp}`);
    return 0;
  }
  return command.run(providerCliContext(ctx, loaded, { command: name }), [...rest]);
}

function providerHelp(loaded: LoadedProviderCli, invoked: string): string {
  const commands = loaded.module.commands ?? [];
  const list =
    commands.length > 0
      ? table(
          commands.map((c) => [c.name, c.summary]),
          { indent: '  ' },
        )
      : '  (none)';
  return `hermes-memory ${invoked} — ${loaded.module.summary} (${loaded.packageName})

Usage: hermes-memory ${invoked} <command> [options]

Commands:
${list}

Run 'hermes-memory ${invoked} <command> --help' for a command's options.`;
}
