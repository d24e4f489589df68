/**
 * Container tags partition Supermemory's store. The primary tag takes every automatic write and
 * read; with custom container tags on, tools may also name one of a whitelist.
 */

/** Every character outside `[A-Za-z0-9_]` becomes `_`, runs collapse, edges are stripped; empty → `hermes`. */
export function sanitizeContainerTag(raw: string): string {
  const tag = raw
    .replace(/[^A-Za-z0-9_]/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '');
  return tag === '' ? 'hermes' : tag;
}

/** `{identity}` is substituted before sanitising: `hermes-{identity}` → `hermes_coder`. */
export function resolveContainerTag(raw: string, identity: string | undefined): string {
  const name = identity && identity.trim() !== '' ? identity.trim() : 'default';
  return sanitizeContainerTag(raw.replaceAll('{identity}', name));
}

/** The tags tools may use: the primary first, then the sanitised custom ones, without repeats. */
export function containerWhitelist(primary: string, custom: readonly string[]): string[] {
  const out = [primary];
  for (const raw of custom) {
    if (raw.trim() === '') continue;
    const tag = sanitizeContainerTag(raw);
    if (!out.includes(tag)) out.push(tag);
  }
  return out;
}
