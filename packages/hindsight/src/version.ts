/** The first server version that appends to a document (`update_mode: "append"`, vectorize-io/hindsight#932). */
export const APPEND_MIN_SERVER = '0.5.0';

/**
 * `actual` ≥ `required`, comparing the first three dotted numbers (a pre-release or build suffix
 * is ignored). Anything without a leading number is false: an unknown server is treated as old.
 */
export function versionAtLeast(actual: string | null | undefined, required: string): boolean {
  if (!actual || !/^\s*v?\d/.test(actual)) return false;
  const parse = (v: string) =>
    v
      .trim()
      .replace(/^v/, '')
      .split(/[.+-]/)
      .slice(0, 3)
      .map((p) => Number.parseInt(p, 10) || 0);
  const a = parse(actual);
  const b = parse(required);
  for (let i = 0; i < 3; i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  }
  return true;
}
