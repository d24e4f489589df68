import type { Command } from '../command';
import { parseCommandArgs } from '../context';
import { CliError, usageError } from '../errors';
import { formatTimestamp, preview, table } from '../format';
import { openSessionStore } from '../stores';

const USAGE = `Usage: hermes-memory sessions <list|search|show> [options]

The session store (state.db): every recorded conversation, searchable with FTS5.

  sessions list [--limit N] [--source cli]     most recently active first
  sessions search <query> [--limit N] [--role user,assistant]
  sessions show <session-id | id-prefix | title>

Search accepts FTS5 syntax: "exact phrase", OR, NOT, prefix*.`;

export const sessionsCommand: Command = {
  name: 'sessions',
  usage: USAGE,
  async run(ctx, argv) {
    const { values, positionals } = parseCommandArgs(
      argv,
      { limit: { type: 'string', short: 'n' }, source: { type: 'string' }, role: { type: 'string' } },
      'sessions',
    );
    const [action, ...args] = positionals;
    if (!action)
      throw usageError('Missing action: list, search or show.', "See 'hermes-memory sessions --help'.");
    const limit = parseLimit(values.limit, action === 'list' ? 20 : 10);
    const store = openSessionStore(ctx.home);
    const s = ctx.style;
    try {
      switch (action) {
        case 'list': {
          if (args.length > 0) throw usageError("'sessions list' takes no arguments.");
          const rows = store
            ? store.listSessionsRich({
                limit,
                orderByLastActive: true,
                ...(values.source ? { source: values.source } : {}),
              })
            : [];
          if (ctx.json) {
            ctx.printJson({
              sessions: rows.map((r) => ({
                id: r.id,
                title: r.title,
                source: r.source,
                model: r.model,
                started_at: r.started_at,
                last_active: r.last_active,
                ended_at: r.ended_at,
                end_reason: r.end_reason,
                message_count: r.message_count,
                preview: r.preview,
              })),
              count: rows.length,
            });
            return 0;
          }
          if (rows.length === 0) {
            ctx.out(s.gray('No sessions recorded yet.'));
            return 0;
          }
          ctx.out(
            table([
              [s.bold('SESSION'), s.bold('LAST ACTIVE'), s.bold('SOURCE'), s.bold('MSGS'), s.bold('PREVIEW')],
              ...rows.map((r) => [
                s.cyan(r.id),
                formatTimestamp(r.last_active),
                r.source,
                String(r.message_count),
                r.title ? s.bold(r.title) : preview(r.preview, 50),
              ]),
            ]),
          );
          return 0;
        }
        case 'search': {
          if (args.length !== 1)
            throw usageError("'sessions search' takes one query (quote it if it has spaces).");
          const roles = values.role
            ? values.role
                .split(',')
                .map((r) => r.trim())
                .filter(Boolean)
            : undefined;
          const { hits, error } = store
            ? store.search(args[0]!, { limit, ...(roles ? { roleFilter: roles } : {}) })
            : { hits: [], error: undefined };
          if (error && hits.length === 0 && !ctx.json) throw new CliError(error);
          if (ctx.json) {
            ctx.printJson({ query: args[0], hits, count: hits.length, ...(error ? { error } : {}) });
            return 0;
          }
          if (hits.length === 0) {
            ctx.out(s.gray('No matching messages.'));
            return 0;
          }
          for (const hit of hits) {
            const snippet = hit.snippet
              .replace(/>>>/g, s.enabled ? '\u001b[1;33m' : '»')
              .replace(/<<</g, s.enabled ? '\u001b[22;39m' : '«');
            ctx.out(
              `${s.cyan(hit.session_id)} ${s.gray(`#${hit.id} ${hit.role} · ${formatTimestamp(hit.timestamp)} · ${hit.source}`)}`,
            );
            ctx.out(`  ${snippet.replace(/\s+/g, ' ')}`);
          }
          return 0;
        }
        case 'show': {
          if (args.length !== 1)
            throw usageError("'sessions show' takes one session id, id prefix or title.");
          const wanted = args[0]!;
          const id = store ? (store.resolveSessionId(wanted) ?? store.resolveSessionByTitle(wanted)) : null;
          const session = id && store ? store.getSession(id) : null;
          if (!store || !id || !session) throw new CliError(`Session '${wanted}' not found.`);
          const messages = store.getMessages(id);
          if (ctx.json) {
            ctx.printJson({ session, messages });
            return 0;
          }
          ctx.out(
            `${s.bold(session.title ?? session.id)} ${s.gray(`${session.source} · started ${formatTimestamp(session.started_at)}${session.ended_at ? ` · ended ${formatTimestamp(session.ended_at)} (${session.end_reason ?? '-'})` : ''}${session.parent_session_id ? ` · parent ${session.parent_session_id}` : ''}`)}`,
          );
          ctx.out();
          for (const m of messages) {
            const label = m.role === 'tool' ? `tool:${m.tool_name ?? ''}` : m.role;
            const colour = m.role === 'user' ? s.green : m.role === 'assistant' ? s.blue : s.gray;
            let body = m.content ?? '';
            if (!body && Array.isArray(m.tool_calls)) {
              body = `[called ${(m.tool_calls as Array<{ function?: { name?: string } }>).map((c) => c.function?.name ?? '?').join(', ')}]`;
            }
            ctx.out(`${colour(`[${label.toUpperCase()}]`)} ${body}`);
          }
          return 0;
        }
        default:
          throw usageError(`Unknown action '${action}'. Use: list, search, show.`);
      }
    } finally {
      store?.close();
    }
  },
};

export function parseLimit(raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new CliError(`Invalid --limit '${raw}': expected a positive integer.`, { exitCode: 2 });
  return n;
}
