import type { Command } from '../command';
import { parseCommandArgs } from '../context';
import { CliError, usageError } from '../errors';
import { failIfUnsuccessful, openMemoryStore, parseTarget } from '../stores';

const USAGE = `Usage: hermes-memory memory <list|add|replace|remove> [options]

Read and edit the built-in memory files (memories/MEMORY.md and USER.md) with the same rules the
agent's \`memory\` tool follows: char limits, the write scanner, exact-duplicate detection, a
cross-process lock and atomic writes.

  memory list [--target memory|user]          entries and usage (both targets by default)
  memory add <content> [--target ...]
  memory replace <old_text> <new_content> [--target ...]
  memory remove <old_text> [--target ...]

Options:
  --target memory|user   MEMORY.md (the agent's notes, default) or USER.md (the user profile)`;

export const memoryCommand: Command = {
  name: 'memory',
  usage: USAGE,
  async run(ctx, argv) {
    const { values, positionals } = parseCommandArgs(
      argv,
      { target: { type: 'string', short: 't' } },
      'memory',
    );
    const [action, ...args] = positionals;
    if (!action)
      throw usageError('Missing action: list, add, replace or remove.', "See 'hermes-memory memory --help'.");
    const store = openMemoryStore(ctx.home);
    const s = ctx.style;

    if (action === 'list') {
      const targets =
        values.target === undefined ? (['memory', 'user'] as const) : [parseTarget(values.target)];
      if (ctx.json) {
        const out: Record<string, unknown> = {};
        for (const t of targets) {
          const usage = store.usage(t);
          out[t] = {
            path: store.pathFor(t),
            entries: store.entries(t),
            usage: usage.text,
            chars: usage.current,
            limit: usage.limit,
          };
        }
        ctx.printJson(out);
        return 0;
      }
      for (const t of targets) {
        const entries = store.entries(t);
        ctx.out(`${s.bold(t === 'memory' ? 'MEMORY.md' : 'USER.md')} ${s.gray(`(${store.usage(t).text})`)}`);
        if (entries.length === 0) ctx.out(s.gray('  (empty)'));
        entries.forEach((entry, i) => {
          const [first, ...more] = entry.split('\n');
          ctx.out(`  ${s.cyan(String(i + 1).padStart(2))}. ${first}`);
          for (const line of more) ctx.out(`      ${line}`);
        });
        ctx.out();
      }
      return 0;
    }

    const target = parseTarget(values.target);
    const options = { writeOrigin: 'cli' };
    let result: { success: boolean; [key: string]: unknown };
    switch (action) {
      case 'add':
        expectArgs(action, args, 1, '<content>');
        result = await store.add(target, args[0]!, options);
        break;
      case 'replace':
        expectArgs(action, args, 2, '<old_text> <new_content>');
        result = await store.replace(target, args[0]!, args[1]!, options);
        break;
      case 'remove':
        expectArgs(action, args, 1, '<old_text>');
        result = await store.remove(target, args[0]!, options);
        break;
      default:
        throw usageError(`Unknown action '${action}'. Use: list, add, replace, remove.`);
    }
    if (ctx.json) {
      ctx.printJson({ ...result, target, usage: store.usage(target).text });
      return result.success ? 0 : 1;
    }
    failIfUnsuccessful(result);
    ctx.out(
      `${s.green('✓')} ${String(result.message ?? 'Done.')} ${s.gray(`${target} — ${store.usage(target).text}`)}`,
    );
    return 0;
  },
};

function expectArgs(action: string, args: readonly string[], n: number, names: string): void {
  if (args.length !== n) {
    throw new CliError(
      `'memory ${action}' takes ${names}${args.length > n ? ' (quote text with spaces)' : ''}.`,
      { exitCode: 2 },
    );
  }
}
