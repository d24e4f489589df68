import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

/**
 * Serve one MCP server over stdin/stdout until the client disconnects. Nothing else may write to
 * stdout while it runs (logs go to stderr).
 */
export async function serveStdio(server: Server): Promise<{ closed: Promise<void> }> {
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    const previous = server.onclose;
    server.onclose = () => {
      previous?.();
      resolve();
    };
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  return { closed };
}
