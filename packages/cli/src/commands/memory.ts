import type { MemoryStore } from '@hermes-memory/builtin';
import type { Command } from '../command';
import { type CommandContext, parseCommandArgs } from '../context';
import { CliError, usageError } from '../errors';
import { failIfUnsuccessful, openMemoryStore, parseTarget } from '../stores';

const USAGE = `Usage: hermes-memory memory <list|add|replace|remove|pending|approve|reject> [options]

Read and edit the built-in memory files (memories/MEMORY.md and USER.md) with the same rules the
agent's \`memory\` tool follows: char limits, the write scanner, exact-duplicate detection, a
cross-process lock and atomic writes.

  memory list [--target memory|user]          entries and usage (both targets by default)
  memory add <content> [--target ...]
  memory replace <old_text> <new_content> [--target ...]
  memory remove <old_text> [--target ...]

Staged writes (write_approval on, or changes proposed by background review):
  memory pending                              list them, oldest first
  memory approve <id...> | --all              apply them (scanned and limit-checked again)
  memory reject <id...> | --all               discard them

Options:
  --target memory|user   MEMORY.md (the agent's notes, default) or USER.md (the user profile)
  --all                  approve / reject every staged write`;

export const memoryCommand: Command = {
  name: 'memory',
  usage: USAGE,
  async run(ctx, argv) {
    const { values, positionals } = parseCommandArgs(
      argv,
      { target: { type: 'string', short: 't' }, all: { type: 'boolean' } },
      'memory',
    );
    const [action, ...args] = positionals;
    if (!action)
      throw usageError(
        'Missing action: list, add, replace, remove, pending, approve or reject.',
        "See 'hermes-memory memory --help'.",
      );
    // Listing (a fresh home included) must not create anything; writes create what they need.
    const store = openMemoryStore(ctx.home, { create: action !== 'list' && action !== 'pending' });
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

    if (action === 'pending') {
      if (args.length > 0) throw new CliError("'memory pending' takes no arguments.", { exitCode: 2 });
      const pending = store.listPending();
      if (ctx.json) {
        ctx.printJson({ pending, count: pending.length });
        return 0;
      }
      if (pending.length === 0) ctx.out(s.gray('No staged memory writes.'));
      for (const p of pending) {
        ctx.out(`${s.cyan(p.id)} ${s.gray(`${p.createdAt.slice(0, 16).replace('T', ' ')} · ${p.reason}`)}`);
        ctx.out(`  ${p.summary}`);
        if (p.lastError) ctx.out(`  ${s.red(`last attempt failed: ${p.lastError}`)}`);
      }
      return 0;
    }
    if (action === 'approve' || action === 'reject')
      return decide(ctx, store, action, args, values.all === true);

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
        throw usageError(
          `Unknown action '${action}'. Use: list, add, replace, remove, pending, approve, reject.`,
        );
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

/** Approve or reject staged writes by id (or all of them); exit 1 when any could not be done. */
async function decide(
  ctx: CommandContext,
  store: MemoryStore,
  action: 'approve' | 'reject',
  ids: readonly string[],
  all: boolean,
): Promise<number> {
  if (all === ids.length > 0)
    throw new CliError(`'memory ${action}' takes staged write ids or --all (see 'memory pending').`, {
      exitCode: 2,
    });
  const chosen = all ? store.listPending().map((p) => p.id) : [...new Set(ids)];
  const results: Array<{ pending_id: string; success: boolean; [key: string]: unknown }> = [];
  for (const id of chosen) {
    if (action === 'approve') results.push(await store.applyPending(id));
    else {
      const removed = await store.rejectPending(id);
      results.push(
        removed
          ? { pending_id: id, success: true, message: 'Discarded.' }
          : { pending_id: id, success: false, error: `No pending memory write with id '${id}'.` },
      );
    }
  }
  const ok = results.every((r) => r.success);
  if (ctx.json) {
    ctx.printJson({ success: ok, results });
    return ok ? 0 : 1;
  }
  const s = ctx.style;
  if (results.length === 0) ctx.out(s.gray('No staged memory writes.'));
  for (const r of results) {
    if (r.success)
      ctx.out(
        `${s.green('✓')} ${r.pending_id} ${String(r.message ?? (action === 'approve' ? 'Applied.' : 'Discarded.'))}`,
      );
    else ctx.err(`hermes-memory: ${r.pending_id}: ${String(r.error ?? 'failed')}`);
  }
  return ok ? 0 : 1;
}

function expectArgs(action: string, args: readonly string[], n: number, names: string): void {
  if (args.length !== n) {
    throw new CliError(
      `'memory ${action}' takes ${names}${args.length > n ? ' (quote text with spaces)' : ''}.`,
      { exitCode: 2 },
    );
  }
}
