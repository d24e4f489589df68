import fs from 'node:fs';
import path from 'node:path';
import { FileWriteError, UnsafePathError } from '../errors/memory-error';
import { errnoCode, lstatIfExists } from './no-follow';

export interface DirOptions {
  /**
   * Folders strictly below `root` must be real folders, never symbolic links (HERMES_HOME itself
   * may be a link: pointing it elsewhere is the user's choice). Defaults to the folder itself.
   */
  root?: string;
  /** Mode of created folders (default 0700). Existing folders keep theirs. */
  mode?: number;
}

function span(dir: string, root: string | undefined): { target: string; root: string; below: string[] } {
  const target = path.resolve(dir);
  const top = path.resolve(root ?? target);
  const rel = path.relative(top, target);
  if (rel.startsWith('..') || path.isAbsolute(rel)) throw new TypeError(`${target} is not inside ${top}.`);
  const below: string[] = [];
  let cur = top;
  for (const part of rel === '' ? [] : rel.split(path.sep)) {
    cur = path.join(cur, part);
    below.push(cur);
  }
  return { target, root: top, below };
}

function mkdirOne(dir: string, mode: number): void {
  try {
    fs.mkdirSync(dir, { mode });
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'EEXIST' && lstatIfExists(dir)?.isDirectory()) return; // created by someone else meanwhile
    if (code === 'EEXIST' && lstatIfExists(dir)?.isSymbolicLink()) throw new UnsafePathError(dir, 'symlink');
    throw new FileWriteError({ path: dir, stage: 'mkdir', code, cause: error });
  }
}

/**
 * Create `dir` as a folder one component at a time. Node's `mkdirSync(…, {recursive: true})`
 * spins forever where mkdir answers ENOENT under an existing parent (`/proc/self/x`); here every
 * failure is one clear FileWriteError.
 */
function makeDirs(dir: string, mode: number): void {
  const missing: string[] = [];
  for (let cur = dir; ; cur = path.dirname(cur)) {
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(cur); // above root, links are followed
    } catch (error) {
      const code = errnoCode(error);
      if (code !== 'ENOENT') throw new FileWriteError({ path: cur, stage: 'mkdir', code, cause: error });
    }
    if (st) {
      if (!st.isDirectory()) throw new UnsafePathError(cur, 'not-a-directory');
      break;
    }
    missing.push(cur);
    if (path.dirname(cur) === cur) break;
  }
  for (const d of missing.reverse()) mkdirOne(d, mode);
}

/**
 * Make sure `dir` exists as a folder, creating what is missing (0700), and that no component
 * between `root` and `dir` is a symbolic link or a file.
 */
export function ensureDir(dir: string, options: DirOptions = {}): void {
  const mode = options.mode ?? 0o700;
  const { root, below } = span(dir, options.root);
  makeDirs(root, mode);
  for (const d of below) {
    const st = lstatIfExists(d);
    if (!st) mkdirOne(d, mode);
    else if (st.isSymbolicLink()) throw new UnsafePathError(d, 'symlink');
    else if (!st.isDirectory()) throw new UnsafePathError(d, 'not-a-directory');
  }
}

/**
 * The read-only twin of `ensureDir`: true when `dir` exists and no component below `root` is a
 * link or a file, false when something is missing (nothing is created). Throws UnsafePathError.
 */
export function checkDir(dir: string, options: Pick<DirOptions, 'root'> = {}): boolean {
  const { root, below } = span(dir, options.root);
  let st: fs.Stats;
  try {
    st = fs.statSync(root);
  } catch {
    return false;
  }
  if (!st.isDirectory()) throw new UnsafePathError(root, 'not-a-directory');
  for (const d of below) {
    const sub = lstatIfExists(d);
    if (!sub) return false;
    if (sub.isSymbolicLink()) throw new UnsafePathError(d, 'symlink');
    if (!sub.isDirectory()) throw new UnsafePathError(d, 'not-a-directory');
  }
  return true;
}
