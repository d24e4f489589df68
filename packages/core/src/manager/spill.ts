import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writeNewFile } from '../fs/atomic-write';
import { ensureDir } from '../fs/dirs';

/** Default `hooks.output_spill`: recall longer than this is spilled to a file. */
export const DEFAULT_SPILL_CHARS = 10_000;

/** How many spill files to keep; older ones are pruned on each spill so the cache cannot grow unbounded. */
const KEEP_FILES = 50;

/** `<hermesHome>/cache/memory-spill` */
export function spillDir(hermesHome: string): string {
  return path.join(hermesHome, 'cache', 'memory-spill');
}

export interface SpillResult {
  /** What goes into the memory-context block instead of the full text. */
  preview: string;
  /** Where the full text was written; undefined when writing failed. */
  file?: string;
  /** Why the file could not be written (a full disk, a symlinked spill folder, ...). */
  error?: string;
}

/**
 * Write `text` to a fresh 0600 file under the spill directory and return a head/tail preview
 * that names the file. The preview (with its notice) stays within `limit` characters for any
 * limit above a few hundred; the agent can read the file if it needs the middle.
 * Never throws: if the file cannot be written the preview says so and carries no path.
 */
export function spillText(
  text: string,
  options: { hermesHome: string; limit: number; label: string; now?: Date },
): SpillResult {
  const { limit, label } = options;
  const headLen = Math.max(1, Math.floor(limit * 0.6));
  const tailLen = Math.max(1, Math.floor(limit * 0.2));
  const head = text.slice(0, headLen);
  const tail = text.slice(text.length - tailLen);
  const omitted = text.length - head.length - tail.length;
  let file: string | undefined;
  let error: string | undefined;
  try {
    file = writeSpillFile(text, options.hermesHome, label, options.now ?? new Date());
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught);
  }
  const where = file
    ? `Full recall from '${label}' (${text.length.toLocaleString('en-US')} chars) saved to: ${file}`
    : `Full recall from '${label}' (${text.length.toLocaleString('en-US')} chars) could not be saved`;
  const preview = `${head}\n\n[… ${omitted.toLocaleString('en-US')} chars omitted. ${where} …]\n\n${tail}`;
  return file ? { preview, file } : { preview, ...(error ? { error } : {}) };
}

/** Spill file names: `<label>-<ISO time>-<8 hex>.md`; pruning touches nothing else. */
const SPILL_NAME = /^[A-Za-z0-9._-]{1,40}-\d{4}-\d{2}-\d{2}T[\d-]+Z-[0-9a-f]{8}\.md$/;

function writeSpillFile(text: string, hermesHome: string, label: string, now: Date): string {
  const dir = spillDir(hermesHome);
  // cache/ and cache/memory-spill/ must be real folders: pruning a linked folder would delete
  // whatever it points at.
  ensureDir(dir, { root: hermesHome });
  const safe = label.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40) || 'provider';
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const file = path.join(dir, `${safe}-${stamp}-${randomBytes(4).toString('hex')}.md`);
  // Exclusive create (never follows or overwrites a path), every byte written, 0600. No fsync:
  // a spill file is a cache for this turn, and a torn one is removed by the write itself.
  writeNewFile(file, text, { durable: false });
  pruneSpillDir(dir, file);
  return file;
}

/** Keep the newest spill files: only our own names, only regular files, never through a link. */
function pruneSpillDir(dir: string, keep: string): void {
  try {
    if (!fs.lstatSync(dir).isDirectory()) return; // swapped for a link since ensureDir: leave it
    const files: Array<{ f: string; t: number }> = [];
    for (const name of fs.readdirSync(dir)) {
      if (!SPILL_NAME.test(name)) continue;
      const f = path.join(dir, name);
      if (f === keep) continue;
      const st = fs.lstatSync(f);
      if (st.isFile()) files.push({ f, t: st.mtimeMs });
    }
    files.sort((a, b) => b.t - a.t);
    for (const { f } of files.slice(KEEP_FILES - 1)) fs.rmSync(f, { force: true });
  } catch {
    // Pruning is housekeeping; a failure must not cost the recall.
  }
}
