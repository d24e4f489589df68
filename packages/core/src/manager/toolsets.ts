import { type Logger, silentLogger } from '../logging/logger';
import type { ToolSchema } from '../provider/types';
import type { MemoryManager } from './memory-manager';

/** The toolset that carries memory tools (the builtin `memory` tool and every provider's tools). */
export const MEMORY_TOOLSET = 'memory';

/**
 * Expands a composite toolset name ("hermes-cli", "all", …) into the toolsets or tool names it
 * includes; undefined/null for a name that is not composite. Nested composites are expanded too.
 */
export type ToolsetResolver = (name: string) => Iterable<string> | null | undefined;

export interface MemoryToolsGateOptions {
  /** The builtin `memory` tool is already in the agent's tool list. Default false. */
  memoryToolPresent?: boolean;
  /** Expands composite toolsets listed in `enabledToolsets`. */
  resolveToolset?: ToolsetResolver;
}

/**
 * Whether memory-provider tools belong on the agent's tool surface:
 * false if "memory" is disabled; true if the builtin memory tool is already present or there is
 * no toolset filter (`enabledToolsets` null/undefined); false for an empty filter; true if
 * "memory" is enabled directly or through a composite toolset; false otherwise.
 */
export function memoryProviderToolsEnabled(
  enabledToolsets: readonly string[] | null | undefined,
  disabledToolsets?: readonly string[] | null,
  options: MemoryToolsGateOptions = {},
): boolean {
  if (disabledToolsets?.includes(MEMORY_TOOLSET)) return false;
  if (options.memoryToolPresent) return true;
  if (enabledToolsets === null || enabledToolsets === undefined) return true;
  if (enabledToolsets.length === 0) return false;
  return enabledToolsets.some((name) => includesMemory(name, options.resolveToolset, new Set()));
}

function includesMemory(name: string, resolve: ToolsetResolver | undefined, seen: Set<string>): boolean {
  if (name === MEMORY_TOOLSET) return true;
  if (!resolve || seen.has(name)) return false;
  seen.add(name);
  let members: Iterable<string> | null | undefined;
  try {
    members = resolve(name);
  } catch {
    return false;
  }
  if (!members) return false;
  for (const member of members) {
    if (typeof member === 'string' && includesMemory(member, resolve, seen)) return true;
  }
  return false;
}

/** An agent tool entry in the OpenAI chat-completions shape. */
export interface FunctionToolEntry {
  type: 'function';
  function: ToolSchema;
}

export interface InjectMemoryToolsOptions extends MemoryToolsGateOptions {
  /** Toolsets the agent was started with; null/undefined = no filter. */
  enabledToolsets?: readonly string[] | null;
  disabledToolsets?: readonly string[] | null;
  /** The agent's set of callable tool names; injected names are added to it. */
  validToolNames?: Set<string>;
  /** Where the gated-off notice goes (INFO, once per manager). */
  logger?: Logger;
}

const gatedOffLogged = new WeakSet<MemoryManager>();

function entryName(entry: unknown): string | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined;
  const e = entry as Record<string, unknown>;
  const fn = e.function;
  if (typeof fn === 'object' && fn !== null) {
    const name = (fn as Record<string, unknown>).name;
    if (typeof name === 'string') return name;
  }
  return typeof e.name === 'string' ? e.name : undefined;
}

/**
 * Append `{type: "function", function: schema}` for every memory-provider tool not already in
 * `tools` (deduplicated by name: a duplicate tool name makes model APIs reject the request) and
 * add the names to `validToolNames`. Returns how many were added. When the toolset gate is off it
 * adds nothing and logs that once at INFO — the host should then also withhold the providers'
 * system-prompt blocks. `memoryToolPresent` defaults to whether `tools` already holds `memory`.
 */
export function injectMemoryProviderTools(
  tools: Array<FunctionToolEntry | Record<string, unknown>>,
  manager: MemoryManager,
  options: InjectMemoryToolsOptions = {},
): number {
  const present = new Set<string>();
  for (const entry of tools) {
    const name = entryName(entry);
    if (name) present.add(name);
  }
  const enabled = memoryProviderToolsEnabled(options.enabledToolsets, options.disabledToolsets, {
    memoryToolPresent: options.memoryToolPresent ?? present.has(MEMORY_TOOLSET),
    ...(options.resolveToolset ? { resolveToolset: options.resolveToolset } : {}),
  });
  if (!enabled) {
    if (!gatedOffLogged.has(manager)) {
      gatedOffLogged.add(manager);
      (options.logger ?? silentLogger).info(
        "Memory provider tools not injected: the 'memory' toolset is not enabled for this agent.",
      );
    }
    return 0;
  }
  let added = 0;
  for (const schema of manager.getAllToolSchemas()) {
    if (present.has(schema.name)) continue;
    present.add(schema.name);
    tools.push({ type: 'function', function: schema });
    options.validToolNames?.add(schema.name);
    added++;
  }
  return added;
}
