import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

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
  try {
    file = writeSpillFile(text, options.hermesHome, label, options.now ?? new Date());
  } catch {
    file = undefined;
  }
  const where = file
    ? `Full recall from '${label}' (${text.length.toLocaleString('en-US')} chars) saved to: ${file}`
    : `Full recall from '${label}' (${text.length.toLocaleString('en-US')} chars) could not be saved`;
  const preview = `${head}\n\n[… ${omitted.toLocaleString('en-US')} chars omitted. ${where} …]\n\n${tail}`;
  return file ? { preview, file } : { preview };
}

function writeSpillFile(text: string, hermesHome: string, label: string, now: Date): string {
  const dir = spillDir(hermesHome);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const safe = label.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40) || 'provider';
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const file = path.join(dir, `${safe}-${stamp}-${randomBytes(4).toString('hex')}.md`);
  // 'wx': never follow or overwrite an existing path; 0600 like every memory file.
  fs.writeFileSync(file, text, { encoding: 'utf8', mode: 0o600, flag: 'wx' });
  fs.chmodSync(file, 0o600);
  pruneSpillDir(dir, file);
  return file;
}

function pruneSpillDir(dir: string, keep: string): void {
  try {
    const files = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.md'))
      .map((f) => path.join(dir, f))
      .filter((f) => f !== keep)
      .map((f) => ({ f, t: fs.statSync(f).mtimeMs }))
      .sort((a, b) => b.t - a.t);
    for (const { f } of files.slice(KEEP_FILES - 1)) fs.rmSync(f, { force: true });
  } catch {
    // Pruning is housekeeping; a failure must not cost the recall.
  }
}
