import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createMemoryMcpServer, serveStdio } from '../src';

const manager = {
  getAllToolSchemas: () => [],
  handleToolCall: async () => JSON.stringify({ success: false, error: 'no tools' }),
};

/** A stdio server on in-memory pipes: write lines in, read the answered lines out. */
async function stdioServer() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const lines: unknown[] = [];
  let buffered = '';
  const waiters: Array<() => void> = [];
  stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
      lines.push(JSON.parse(buffered.slice(0, i)));
      buffered = buffered.slice(i + 1);
      for (const w of waiters.splice(0)) w();
    }
  });
  const { closed } = await serveStdio(createMemoryMcpServer({ manager }), { stdin, stdout });
  const answer = async (line: string): Promise<unknown> => {
    const seen = lines.length;
    stdin.write(`${line}\n`);
    while (lines.length === seen) await new Promise<void>((resolve) => waiters.push(resolve));
    return lines[seen];
  };
  const stop = () => {
    stdin.end();
    return closed;
  };
  return { answer, stop };
}

describe('serveStdio', () => {
  it('answers a line that is not JSON, or not JSON-RPC, with an error instead of silence, and goes on serving', async () => {
    const server = await stdioServer();
    expect(await server.answer('{not json')).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error: the line is not valid JSON.' },
    });
    expect(await server.answer('{"hello":"world"}')).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: the line is not a JSON-RPC 2.0 message.' },
    });
    const init = (await server.answer(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    )) as { id: number; result: { serverInfo: { name: string } } };
    expect(init.id).toBe(1);
    expect(init.result.serverInfo.name).toBe('hermes-memory');
    await server.stop();
  });
});
