/**
 * Text rules of the reference: what a captured turn keeps, the metadata every write carries, the
 * store tool's category guess, previews.
 */

/** Sent when no entity context is configured: extract lasting facts, store less when in doubt. */
export const DEFAULT_ENTITY_CONTEXT = [
  'This is a conversation between a user and their AI assistant (Hermes).',
  'Extract only lasting personal facts about the user: preferences, routines, tools they use,',
  'projects they work on, people and places that matter to them, and anything they explicitly ask to be remembered.',
  'Skip temporary intents, one-off tasks, actions the assistant took, and implementation detail.',
  'When in doubt, store less.',
].join(' ');

const INJECTED_BLOCKS = [
  /<supermemory-context>[\s\S]*?<\/supermemory-context>\s*/g,
  /<supermemory-containers>[\s\S]*?<\/supermemory-containers>\s*/g,
];

/** Remove blocks this provider injected (recall, container notes), then trim. */
export function cleanCapturedText(text: string): string {
  let out = text;
  for (const block of INJECTED_BLOCKS) out = out.replace(block, '');
  return out.trim();
}

/** A metadata value the service accepts: string, number, boolean or a list of strings. */
export type MetadataValue = string | number | boolean | string[];

/**
 * Every written document carries `sm_source: "hermes"`. A caller's `source` key is dropped; when
 * `type` is absent it becomes `type` (old callers used `source` for the kind of memory).
 */
export function hermesMetadata(metadata?: Readonly<Record<string, unknown>>): Record<string, MetadataValue> {
  const out: Record<string, MetadataValue> = {};
  for (const [key, value] of Object.entries(metadata ?? {})) {
    const clean = metadataValue(value);
    if (clean !== undefined) out[key] = clean;
  }
  if ('source' in out) {
    if (!('type' in out)) out.type = out.source as MetadataValue;
    delete out.source;
  }
  out.sm_source = 'hermes';
  return out;
}

function metadataValue(value: unknown): MetadataValue | undefined {
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (Array.isArray(value)) return value.map(String);
  if (value === null || value === undefined) return undefined;
  return JSON.stringify(value);
}

/** The store tool's guess at what a memory is, when the caller gives no `type`. */
export function detectCategory(text: string): 'preference' | 'decision' | 'fact' | 'other' {
  const lower = text.toLowerCase();
  if (/\b(prefer|like|love|hate|want)/.test(lower)) return 'preference';
  if (/\b(decided|will use|going with)\b/.test(lower)) return 'decision';
  if (/\b(is|are|has|have)\b/.test(lower)) return 'fact';
  return 'other';
}

/** The first `max` characters, with "..." when there was more. */
export function preview(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}...` : text;
}
