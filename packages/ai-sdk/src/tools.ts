import type { ToolSchema } from '@hermes-memory/core';
import { jsonSchema, type Tool, type ToolSet, tool } from 'ai';
import type { AiSdkMemoryManager } from './types';

type JsonSchemaInput = Parameters<typeof jsonSchema>[0];

export interface MemoryToolsOptions {
  /** Session id passed to every tool call (session_search skips the current session). Default: the manager's. */
  sessionId?: string;
  /** Expose only these tool names. */
  include?: readonly string[];
  /** Hide these tool names (applied after `include`). */
  exclude?: readonly string[];
}

/**
 * Every memory tool of the manager's providers (`memory`, `session_search`, the external
 * provider's tools) as an AI SDK `ToolSet`. The JSON schemas pass through unchanged; `execute`
 * routes through `manager.handleToolCall` and returns the parsed JSON result. It never throws: a
 * failure (bad arguments, a blocked write, a crashing provider) comes back to the model as the
 * provider's `{"success": false, "error": …}` object, the way the Python reference reports it.
 *
 * Call it after `manager.initializeAll(...)`: providers list their tools once initialised.
 */
export function memoryTools(manager: AiSdkMemoryManager, options: MemoryToolsOptions = {}): ToolSet {
  const include = options.include ? new Set(options.include) : undefined;
  const exclude = new Set(options.exclude ?? []);
  const tools: ToolSet = {};
  for (const schema of manager.getAllToolSchemas()) {
    if (include && !include.has(schema.name)) continue;
    if (exclude.has(schema.name)) continue;
    tools[schema.name] = memoryTool(manager, schema, options.sessionId);
  }
  return tools;
}

function memoryTool(
  manager: AiSdkMemoryManager,
  schema: ToolSchema,
  sessionId?: string,
): Tool<unknown, unknown> {
  return tool<unknown, unknown>({
    description: schema.description,
    inputSchema: jsonSchema<unknown>(objectSchema(schema.parameters)),
    metadata: { source: 'hermes-memory' },
    execute: async (input, { abortSignal }) => {
      let text: string;
      try {
        text = await manager.handleToolCall(schema.name, input ?? {}, {
          ...((sessionId ?? manager.sessionId) ? { sessionId: sessionId ?? manager.sessionId } : {}),
          ...(abortSignal ? { signal: abortSignal } : {}),
        });
      } catch (error) {
        // MemoryManager never throws here; a narrower host object might.
        return { success: false, error: error instanceof Error ? error.message : String(error) };
      }
      return parseToolResult(text);
    },
  });
}

/** Tool results are JSON strings; a provider that answers plain text is passed on as that string. */
export function parseToolResult(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function objectSchema(parameters: ToolSchema['parameters'] | undefined): JsonSchemaInput {
  const params: unknown = parameters;
  if (params && typeof params === 'object' && (params as { type?: unknown }).type === 'object') {
    return params as JsonSchemaInput;
  }
  return { type: 'object', properties: {} };
}
