/**
 * Tool names that belong to the agent itself. A memory provider advertising one of them would
 * shadow a core tool, so the manager refuses to route or advertise it.
 */
export const RESERVED_TOOL_NAMES: ReadonlySet<string> = new Set([
  'memory',
  'session_search',
  'terminal',
  'process',
  'clarify',
  'delegate_task',
  'todo',
  'read_file',
  'write_file',
  'patch',
  'search_files',
  'web_search',
  'web_extract',
  'skill_view',
  'skill_manage',
  'skills_list',
  'execute_code',
  'send_message',
  'vision_analyze',
  'image_generate',
  'text_to_speech',
  'cronjob',
  'mixture_of_agents',
]);

/**
 * Families of core tools reserved by prefix: the browser tools (`browser_navigate`, `browser_click`,
 * …) and the Home Assistant tools (`ha_get_state`, `ha_call_service`, …).
 */
export const RESERVED_TOOL_PREFIXES: readonly string[] = ['browser_', 'ha_'];

/** What the builtin store may expose although the names are reserved: they are its own tools. */
export const BUILTIN_TOOL_NAMES: ReadonlySet<string> = new Set(['memory', 'session_search']);

export function isReservedToolName(name: string, extra: ReadonlySet<string> = new Set()): boolean {
  return (
    RESERVED_TOOL_NAMES.has(name) || extra.has(name) || RESERVED_TOOL_PREFIXES.some((p) => name.startsWith(p))
  );
}
