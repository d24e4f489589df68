import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ToolCallOptions, ToolSchema } from '@hermes-memory/core';

/**
 * What the server needs from a memory manager: the tools of every active provider and the router
 * that runs them. `MemoryManager` from `@hermes-memory/core` satisfies it.
 */
export interface McpMemoryManager {
  getAllToolSchemas(): ToolSchema[];
  handleToolCall(name: string, args: unknown, options?: ToolCallOptions): Promise<string> | string;
}

export interface MemoryMcpServerOptions {
  manager: McpMemoryManager;
  /**
   * The memory snapshot (MEMORY.md + USER.md blocks as the agent's system prompt shows them).
   * Served as the `hermes-memory://snapshot` resource and called on every read, so a long-running
   * server shows the store as it is then (the CLI re-reads the files), not as it was at launch.
   */
  snapshot?: () => string | Promise<string>;
  /** Static provider text for the system prompt, served as `hermes-memory://system-prompt`. */
  systemPrompt?: () => string | Promise<string>;
  /** Session id passed to provider tool calls (session_search skips the current session). */
  sessionId?: string;
  name?: string;
  version?: string;
  /** Sent to clients in the initialize result; defaults to a short guide to the memory tools. */
  instructions?: string;
}

// package.json's version, put in by the build (tsup.preset.ts); running from source reports 0.0.0-dev.
declare const __PACKAGE_VERSION__: string | undefined;
const MCP_VERSION = typeof __PACKAGE_VERSION__ === 'string' ? __PACKAGE_VERSION__ : '0.0.0-dev';

export const SNAPSHOT_URI = 'hermes-memory://snapshot';
export const SYSTEM_PROMPT_URI = 'hermes-memory://system-prompt';

/** MCP's "Resource not found" error code (the resources part of the spec). */
const RESOURCE_NOT_FOUND = -32002;

/**
 * The SDK's `Protocol` parses a request with the schema a handler is registered under before the
 * handler runs, and a failed parse becomes -32603 "Internal error" with the validator's dump. So
 * `tools/call` and `resources/read` are registered under the method alone and their params are
 * validated after: `Server` does it for `tools/call` (-32602), `readParams` for `resources/read`.
 */
const methodOnly = <M extends string>(method: M) =>
  z.object({ method: z.literal(method), params: z.unknown().optional() }).passthrough();

const DEFAULT_INSTRUCTIONS =
  'Long-term memory for this user (Hermes-compatible). Read the hermes-memory://snapshot resource at the ' +
  'start of a conversation: it holds your saved notes and the user profile. Save durable facts, ' +
  'preferences and corrections with the `memory` tool; use `session_search` to recall past conversations.';

/**
 * An MCP server over a memory manager: every provider tool (the builtin `memory` tool,
 * `session_search`, and the active external provider's tools) becomes an MCP tool with its JSON
 * schema passed through unchanged, and the memory snapshot is a resource. Tool results are the
 * providers' JSON strings; a `{"success": false}` result is flagged `isError`.
 *
 * One `Server` serves one connection; the HTTP transport builds one per session.
 */
export function createMemoryMcpServer(options: MemoryMcpServerOptions): Server {
  const server = new Server(
    { name: options.name ?? 'hermes-memory', version: options.version ?? MCP_VERSION },
    {
      capabilities: { tools: {}, resources: {} },
      instructions: options.instructions ?? DEFAULT_INSTRUCTIONS,
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: options.manager.getAllToolSchemas().map(toMcpTool),
  }));

  server.setRequestHandler(methodOnly('tools/call'), async (raw, extra): Promise<CallToolResult> => {
    const request = CallToolRequestSchema.safeParse(raw);
    if (!request.success) throw invalidParams('tools/call', request.error.issues);
    const { name, arguments: args } = request.data.params;
    const known = options.manager.getAllToolSchemas().some((t) => t.name === name);
    if (!known) return errorResult(`Unknown tool: ${name}`);
    let text: string;
    try {
      text = await options.manager.handleToolCall(name, args ?? {}, {
        ...(options.sessionId ? { sessionId: options.sessionId } : {}),
        signal: extra.signal,
      });
    } catch (error) {
      return errorResult(error instanceof Error ? error.message : String(error));
    }
    return { content: [{ type: 'text', text }], isError: isFailure(text) };
  });

  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [
      ...(options.snapshot
        ? [
            {
              uri: SNAPSHOT_URI,
              name: 'memory-snapshot',
              title: 'Memory snapshot',
              description: 'Saved notes (MEMORY.md) and user profile (USER.md), as they are when read.',
              mimeType: 'text/plain',
            },
          ]
        : []),
      ...(options.systemPrompt
        ? [
            {
              uri: SYSTEM_PROMPT_URI,
              name: 'memory-system-prompt',
              title: 'Memory system prompt',
              description: 'The full memory part of the system prompt: snapshot plus provider guidance.',
              mimeType: 'text/plain',
            },
          ]
        : []),
    ],
  }));

  server.setRequestHandler(methodOnly('resources/read'), async (raw) => {
    const request = ReadResourceRequestSchema.safeParse(raw);
    if (!request.success) throw invalidParams('resources/read', request.error.issues);
    const { uri } = request.data.params;
    const source =
      uri === SNAPSHOT_URI ? options.snapshot : uri === SYSTEM_PROMPT_URI ? options.systemPrompt : undefined;
    if (!source) throw new McpError(RESOURCE_NOT_FOUND, `Unknown resource: ${uri}`, { uri });
    const text = await source();
    return { contents: [{ uri, mimeType: 'text/plain', text }] };
  });

  return server;
}

function toMcpTool(schema: ToolSchema): Tool {
  const params = schema.parameters;
  const inputSchema = (
    params && typeof params === 'object' && params.type === 'object'
      ? params
      : { type: 'object', properties: {} }
  ) as Tool['inputSchema'];
  return { name: schema.name, description: schema.description, inputSchema };
}

/** -32602 naming each bad field in one line (`params.uri: Invalid input: expected string …`). */
function invalidParams(method: string, issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): McpError {
  const detail = issues.map((i) => `${i.path.map(String).join('.')}: ${i.message}`).join('; ');
  return new McpError(ErrorCode.InvalidParams, `Invalid ${method} request: ${detail}`);
}

function errorResult(message: string): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify({ success: false, error: message }) }],
    isError: true,
  };
}

/** Provider tools report failure in-band as JSON (`success: false`, or a bare `error`). */
function isFailure(text: string): boolean {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return false;
    const record = parsed as Record<string, unknown>;
    if (record.success === false) return true;
    return record.success === undefined && typeof record.error === 'string';
  } catch {
    return false;
  }
}
