/**
 * The write-approval gate (`write_approval`). The reference has one boolean: off writes freely;
 * on never commits directly — it asks inline on an interactive CLI, else stages. A library has no
 * inline prompt, so "on" stages. `'block'` is this port's extra: refuse every mutating call (a
 * read-only memory that still shows its snapshot). See decision 0303.
 */
export type WriteApprovalMode = 'off' | 'stage' | 'block';

/** What a host may pass as `writeApproval` (booleans as in config.yaml). */
export type WriteApprovalSetting = boolean | WriteApprovalMode;

const TRUTHY = new Set(['on', 'true', 'yes', '1', 'approve', 'enabled', 'stage']);
const BLOCKING = new Set(['block', 'deny', 'blocked']);

/** Coerce a setting or config value; anything unknown is `'off'` (the reference's default). */
export function resolveWriteApproval(value: unknown): WriteApprovalMode {
  if (value === true) return 'stage';
  if (typeof value === 'number') return value === 1 ? 'stage' : 'off';
  if (typeof value !== 'string') return 'off';
  const v = value.trim().toLowerCase();
  if (BLOCKING.has(v)) return 'block';
  return TRUTHY.has(v) ? 'stage' : 'off';
}

/**
 * Read the gate from a parsed config.yaml: the spec's top-level `write_approval`, or
 * `memory.write_approval` (where the later reference keeps it; it wins when both are set).
 */
export function writeApprovalFromConfig(raw: Record<string, unknown> | undefined): WriteApprovalMode {
  if (!raw) return 'off';
  const memory = raw.memory;
  if (typeof memory === 'object' && memory !== null && 'write_approval' in memory) {
    return resolveWriteApproval((memory as Record<string, unknown>).write_approval);
  }
  return resolveWriteApproval(raw.write_approval);
}

export const WRITE_BLOCKED_MESSAGE =
  'Memory writes are disabled here (write_approval: block). The change was not saved; do not retry it.';
