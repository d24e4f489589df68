import fs from 'node:fs';
import path from 'node:path';
import { breakAbandonedLock, judgeLock } from '../fs/exclusive-lock';
import { errnoCode } from '../fs/no-follow';

/**
 * Who owns which journal files in an outbox folder. A process (an "owner", `<pid>-<random>`)
 * holds `<owner>.lock` (core's exclusive-lock format: pid, host, token) for as long as it runs
 * and appends only to its own `<owner>.<n>.jsonl` files. The lock is created before the first
 * journal file and removed after the last write, so a live owner's files are always covered.
 */

const JOURNAL = /^(\d+-[0-9a-f]+)\.(\d+)\.jsonl$/;
const LOCK = /^(\d+-[0-9a-f]+)\.lock$/;

/** A lock that cannot be parsed is taken for one being written until it is this old. */
const FOREIGN_LOCK_GRACE_MS = 10_000;

export function journalName(owner: string, seq: number): string {
  return `${owner}.${seq}.jsonl`;
}

export function lockName(owner: string): string {
  return `${owner}.lock`;
}

/** `owner` → its journal files, oldest first. */
export function listJournals(dir: string): Map<string, string[]> {
  const byOwner = new Map<string, Array<{ name: string; seq: number }>>();
  const locks = new Set<string>();
  for (const name of readDir(dir)) {
    const j = JOURNAL.exec(name);
    if (j) {
      const list = byOwner.get(j[1]!) ?? [];
      list.push({ name, seq: Number(j[2]) });
      byOwner.set(j[1]!, list);
      continue;
    }
    const l = LOCK.exec(name);
    if (l) locks.add(l[1]!);
  }
  const result = new Map<string, string[]>();
  for (const [owner, files] of byOwner)
    result.set(
      owner,
      files.sort((a, b) => a.seq - b.seq).map((f) => f.name),
    );
  for (const owner of locks) if (!result.has(owner)) result.set(owner, []);
  return result;
}

/** Whether `owner`'s files may be taken: its lock is gone, its pid is dead, or it never got written. */
export function ownerGone(dir: string, owner: string): boolean {
  const seen = judgeLock(path.join(dir, lockName(owner)));
  if (seen.state === 'free' || seen.state === 'abandoned') return true;
  return seen.state === 'foreign' && seen.ageMs > FOREIGN_LOCK_GRACE_MS;
}

/**
 * Take a gone owner's journal files by renaming each to a name of `me` (atomic: of two
 * processes adopting at once, one rename wins and the other sees ENOENT), then remove its lock.
 * Returns the new names, oldest first; `nextSeq` numbers them.
 */
export function adoptOwner(
  dir: string,
  owner: string,
  files: readonly string[],
  me: string,
  nextSeq: () => number,
): string[] {
  const taken: string[] = [];
  for (const file of files) {
    const target = journalName(me, nextSeq());
    try {
      fs.renameSync(path.join(dir, file), path.join(dir, target));
      taken.push(target);
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw error;
    }
  }
  const lock = path.join(dir, lockName(owner));
  const seen = judgeLock(lock);
  if (seen.state === 'abandoned') breakAbandonedLock(lock, seen.token);
  else if (seen.state === 'foreign') removeQuietly(lock);
  return taken;
}

export function removeQuietly(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch {}
}

function readDir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return [];
    throw error;
  }
}
