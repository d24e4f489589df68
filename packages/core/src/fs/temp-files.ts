import fs from 'node:fs';
import path from 'node:path';

export interface SweepOptions {
  /** The temp-name prefix the writer used (`writeFileAtomic`'s `tempPrefix`, e.g. `.mem_`). */
  prefix: string;
  /** Only files last modified longer ago than this (default 10 minutes): a live writer renames within ms. */
  olderThanMs?: number;
  /** Injected clock (ms since the epoch). */
  now?: number;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Temp files an interrupted writer left in `dir` (a SIGKILL between create and rename): names
 * `<prefix><token>.tmp` only, regular files only (never a link, never a folder), owned by this
 * user, untouched for `olderThanMs`. Returns their paths; `removeStaleTempFiles` deletes them.
 */
export function findStaleTempFiles(dir: string, options: SweepOptions): string[] {
  const pattern = new RegExp(`^${escapeRegExp(options.prefix)}[A-Za-z0-9_]{6,64}\\.tmp$`);
  const olderThan = options.olderThanMs ?? 10 * 60_000;
  const now = options.now ?? Date.now();
  const uid = process.getuid?.();
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const stale: string[] = [];
  for (const name of names) {
    if (!pattern.test(name)) continue;
    const file = path.join(dir, name);
    try {
      const st = fs.lstatSync(file);
      if (!st.isFile()) continue;
      if (uid !== undefined && st.uid !== uid) continue;
      if (now - st.mtimeMs > olderThan) stale.push(file);
    } catch {}
  }
  return stale;
}

/** Delete what `findStaleTempFiles` finds (unlink never follows a link); returns the removed paths. */
export function removeStaleTempFiles(dir: string, options: SweepOptions): string[] {
  const removed: string[] = [];
  for (const file of findStaleTempFiles(dir, options)) {
    try {
      fs.unlinkSync(file);
      removed.push(file);
    } catch {}
  }
  return removed;
}
