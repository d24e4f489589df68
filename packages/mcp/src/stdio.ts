import type { Readable, Writable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export interface StdioOptions {
  /** Where requests come from (default `process.stdin`). */
  stdin?: Readable;
  /** Where answers go (default `process.stdout`). */
  stdout?: Writable;
}

/**
 * Serve one MCP server over stdin/stdout until the client disconnects. Nothing else may write to
 * stdout while it runs (logs go to stderr).
 *
 * A line that is not JSON, or not a JSON-RPC message, gets a JSON-RPC error with `id: null`
 * (-32700 / -32600), as the HTTP transport answers such a body: the SDK's stdio transport drops the
 * line silently, and a client waiting on it would hang.
 */
export async function serveStdio(
  server: Server,
  options: StdioOptions = {},
): Promise<{ closed: Promise<void> }> {
  const stdin = options.stdin ?? process.stdin;
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  const closed = new Promise<void>((resolve) => {
    const previous = server.onclose;
    server.onclose = () => {
      previous?.();
      resolve();
    };
    stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  const report = transport.onerror;
  transport.onerror = (error) => {
    const reply = unreadableLineReply(error);
    if (reply) void transport.send(reply).catch(() => {});
    report?.(error);
  };
  return { closed };
}

/** The JSON-RPC error for a line the transport could not read as a message, else undefined. */
function unreadableLineReply(error: unknown): JSONRPCMessage | undefined {
  const name = (error as { name?: unknown } | null)?.name;
  const [code, message] =
    error instanceof SyntaxError
      ? [-32700, 'Parse error: the line is not valid JSON.']
      : name === 'ZodError'
        ? [-32600, 'Invalid Request: the line is not a JSON-RPC 2.0 message.']
        : [];
  if (code === undefined) return undefined;
  // JSON-RPC 2.0 answers an unreadable request with `id: null`, which the SDK's types do not model.
  return { jsonrpc: '2.0', id: null, error: { code, message } } as unknown as JSONRPCMessage;
}
