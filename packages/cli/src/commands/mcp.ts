import { createMemoryMcpServer, serveHttp, serveStdio } from '@hermes-memory/mcp';
import type { Command } from '../command';
import { parseCommandArgs } from '../context';
import { CliError } from '../errors';
import { frozenSnapshot, openManager } from '../runtime';
import { CLI_VERSION } from '../version';

const USAGE = `Usage: hermes-memory mcp [--http <port>] [--token <token>]

Run an MCP server over this home's memory: the builtin \`memory\` and \`session_search\` tools plus
the configured provider's tools, and the memory snapshot (MEMORY.md and USER.md as the system
prompt shows them, read afresh on every request) as the resource hermes-memory://snapshot. Speaks stdio by default (for Claude Desktop, Cursor, ...); with --http,
streamable HTTP on 127.0.0.1 only.

HTTP clients must send "Authorization: Bearer <token>". The token is new on every start and printed
to stderr, unless given with --token or HERMES_MEMORY_MCP_TOKEN (at least 16 characters). Requests
from a browser page of another origin are refused, bodies over 256 KiB are refused, at most 4
requests run at once (2 per session), and sessions close after 30 idle minutes (64 at most).

Options:
  --http <port>     serve streamable HTTP on 127.0.0.1:<port> (0: any free port)
  --token <token>   the bearer token HTTP clients must send (default: random, printed)

Example client config:
  { "command": "npx", "args": ["-y", "@hermes-memory/cli", "mcp"], "env": { "HERMES_HOME": "~/.hermes" } }`;

export const mcpCommand: Command = {
  name: 'mcp',
  usage: USAGE,
  async run(ctx, argv) {
    const { values, positionals } = parseCommandArgs(
      argv,
      { http: { type: 'string' }, token: { type: 'string' } },
      'mcp',
    );
    if (positionals.length > 0) throw new CliError('mcp takes no arguments.', { exitCode: 2 });
    let port: number | undefined;
    if (values.http !== undefined) {
      port = Number(values.http);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new CliError(`Invalid --http port '${values.http}'.`, { exitCode: 2 });
    }
    if (values.token !== undefined && port === undefined)
      throw new CliError('--token only applies to --http (stdio needs no token).', { exitCode: 2 });
    const token =
      port === undefined
        ? undefined
        : (values.token ?? (ctx.io.env.HERMES_MEMORY_MCP_TOKEN?.trim() || undefined));
    if (token !== undefined && token.length < 16)
      throw new CliError('The MCP token must be at least 16 characters.', { exitCode: 2 });
    const opened = await openManager(ctx.home, { platform: 'mcp', env: ctx.io.env, cwd: ctx.io.cwd });
    const make = () =>
      createMemoryMcpServer({
        manager: opened.manager,
        sessionId: opened.sessionId,
        version: CLI_VERSION,
        // A long-running server has no prompt cache to protect: each read shows the store as it is.
        snapshot: () => {
          opened.builtin.refreshSnapshot();
          return frozenSnapshot(opened.builtin);
        },
        systemPrompt: () => {
          opened.builtin.refreshSnapshot();
          return opened.manager.buildSystemPrompt();
        },
      });
    const stop = async () => {
      opened.manager.onSessionEnd([]);
      await opened.manager.shutdownAll();
    };
    if (port === undefined) {
      const { closed } = await serveStdio(make());
      await closed;
      await stop();
      return 0;
    }
    const handle = await serveHttp(make, { port, ...(token ? { token } : {}) });
    ctx.err(`hermes-memory MCP server on ${handle.url} (home ${ctx.home}); Ctrl-C to stop`);
    // The generated token is printed once, to stderr, for the user to put in the client's config.
    ctx.err(
      token
        ? 'Clients authenticate with the token from --token / HERMES_MEMORY_MCP_TOKEN.'
        : `Clients must send: Authorization: Bearer ${handle.token}`,
    );
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await handle.close();
    await stop();
    return 0;
  },
};
