/** `hermes-memory mem0 test|search|list|add|delete`: each opens the backend the agent would use. */
import type { ProviderCommand } from '@hermes-memory/core';
import { callTool, mem0ForHome, withMem0 } from './session';

interface Listed {
  id: string;
  memory: string;
  score?: number | null;
}

export const testCommand: ProviderCommand = {
  name: 'test',
  summary: 'check the connection and the key (one request)',
  usage:
    'Usage: hermes-memory mem0 test [--json]\n\nReach the configured Mem0 backend once and report how it went.',
  async run(ctx, argv) {
    ctx.parseArgs(argv, {});
    const provider = mem0ForHome(ctx);
    const result = await provider.probe({ signal: ctx.signal });
    if (ctx.json) ctx.printJson(result);
    else if (result.status === 'ok')
      ctx.out(`${ctx.style.green('✓')} ${result.message} (${result.latencyMs ?? '?'} ms)`);
    else ctx.err(`${ctx.style.red('✗')} ${result.message}`);
    return result.status === 'ok' ? 0 : 1;
  },
};

export const searchCommand: ProviderCommand = {
  name: 'search',
  summary: "search the user's memories",
  usage:
    "Usage: hermes-memory mem0 search <query> [--top-k N] [--rerank] [--json]\n\nSemantic search over the configured user's memories, as the mem0_search tool does.",
  async run(ctx, argv) {
    const { values, positionals } = ctx.parseArgs(argv, {
      'top-k': { type: 'string', short: 'k' },
      rerank: { type: 'boolean' },
    });
    if (positionals.length !== 1) throw ctx.usageError("'search' takes one <query> (quote it).");
    return withMem0(ctx, async (provider) => {
      const answer = await callTool(ctx, provider, 'mem0_search', {
        query: positionals[0],
        ...(values['top-k'] !== undefined ? { top_k: values['top-k'] } : {}),
        ...(values.rerank ? { rerank: true } : {}),
      });
      const results = Array.isArray(answer.results) ? (answer.results as Listed[]) : [];
      if (ctx.json) ctx.printJson({ user_id: provider.activeUserId, count: results.length, results });
      else if (results.length === 0) ctx.out('No relevant memories found.');
      else
        for (const r of results) {
          const score = typeof r.score === 'number' ? ctx.style.dim(`  ${r.score.toFixed(3)}`) : '';
          ctx.out(`${ctx.style.cyan(r.id)}  ${r.memory}${score}`);
        }
      return 0;
    });
  },
};

export const listCommand: ProviderCommand = {
  name: 'list',
  summary: 'every memory of the user',
  usage: 'Usage: hermes-memory mem0 list [--json]\n\nEvery memory of the configured user, page by page.',
  async run(ctx, argv) {
    ctx.parseArgs(argv, {});
    return withMem0(ctx, async (provider) => {
      const memories = await provider.listMemories(ctx.signal);
      if (ctx.json) {
        ctx.printJson({
          user_id: provider.activeUserId,
          count: memories.length,
          memories: memories.map(({ id, memory }) => ({ id, memory })),
        });
      } else {
        for (const m of memories) ctx.out(`${ctx.style.cyan(m.id)}  ${m.memory}`);
        ctx.out(ctx.style.dim(`${memories.length} memories of ${provider.activeUserId}`));
      }
      return 0;
    });
  },
};

export const addCommand: ProviderCommand = {
  name: 'add',
  summary: 'store one fact verbatim (scanned like every write)',
  usage:
    "Usage: hermes-memory mem0 add <fact> [--json]\n\nStore one fact as written (no extraction), after core's write scanner.",
  async run(ctx, argv) {
    const { positionals } = ctx.parseArgs(argv, {});
    if (positionals.length !== 1) throw ctx.usageError("'add' takes one <fact> (quote it).");
    return withMem0(ctx, async (provider) => {
      const answer = await callTool(ctx, provider, 'mem0_add', { content: positionals[0] });
      if (ctx.json) ctx.printJson(answer);
      else ctx.out(`${ctx.style.green('✓')} ${String(answer.result)}`);
      return 0;
    });
  },
};

export const deleteCommand: ProviderCommand = {
  name: 'delete',
  summary: 'delete one memory by id',
  usage:
    'Usage: hermes-memory mem0 delete <memory-id> [--json]\n\nDelete a memory found with search or list.',
  async run(ctx, argv) {
    const { positionals } = ctx.parseArgs(argv, {});
    if (positionals.length !== 1) throw ctx.usageError("'delete' takes one <memory-id>.");
    return withMem0(ctx, async (provider) => {
      const answer = await callTool(ctx, provider, 'mem0_delete', { memory_id: positionals[0] });
      if (ctx.json) ctx.printJson(answer);
      else ctx.out(`${ctx.style.green('✓')} ${String(answer.result)}`);
      return 0;
    });
  },
};

export const MEM0_COMMANDS: readonly ProviderCommand[] = [
  testCommand,
  searchCommand,
  listCommand,
  addCommand,
  deleteCommand,
];
