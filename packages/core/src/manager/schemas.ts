import type { ToolSchema } from '../provider/types';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Accept both the bare `{name, description, parameters}` shape and the wrapped
 * `{type: "function", function: {...}}` shape. Returns null when no string name can be found —
 * one nameless tool makes strict model APIs reject the whole request.
 */
export function normalizeToolSchema(schema: unknown): ToolSchema | null {
  if (!isRecord(schema)) return null;
  let s: Record<string, unknown> = schema;
  if (s.type === 'function' && isRecord(s.function)) s = s.function;
  const name = s.name;
  if (typeof name !== 'string' || name.trim() === '') return null;
  return {
    ...s,
    name,
    description: typeof s.description === 'string' ? s.description : '',
    parameters: isRecord(s.parameters) ? s.parameters : { type: 'object', properties: {} },
  };
}
