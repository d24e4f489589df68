import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { normaliseNewlines } from './entries';

/** Result of a checked read: `ok: false` means the file exists but cannot be read or decoded. */
export interface RawRead {
  raw: string;
  ok: boolean;
  exists: boolean;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true }); // also strips a leading BOM

/**
 * Read a memory file, telling "missing" (empty, fine) apart from "unreadable" (permissions,
 * a directory in its place, invalid UTF-8) — an unreadable file must never be treated as empty.
 * The text is read as the Python agent reads it: BOM dropped, universal newlines.
 */
export function readRawChecked(file: string): RawRead {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { raw: '', ok: true, exists: false };
    return { raw: '', ok: false, exists: true };
  }
  try {
    return { raw: normaliseNewlines(strictUtf8.decode(buf)), ok: true, exists: true };
  } catch {
    return { raw: '', ok: false, exists: true };
  }
}

/**
 * Durable atomic replace: write `.mem_<random>.tmp` (0600) in the same directory, fsync it, rename
 * over the target, fsync the directory. Readers see the old or the new file, never a torn one.
 */
export function writeFileAtomic(file: string, content: string): void {
  const dir = path.dirname(file);
  const tmp = path.join(dir, `.mem_${randomBytes(6).toString('hex')}.tmp`);
  let fd: number | undefined;
  try {
    fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
    fs.writeSync(fd, content, null, 'utf8');
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(tmp, file);
  } catch (error) {
    if (fd !== undefined) {
      try {
        fs.closeSync(fd);
      } catch {}
    }
    try {
      fs.unlinkSync(tmp);
    } catch {}
    throw error;
  }
  fsyncDir(dir);
}

export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Some filesystems refuse fsync on directories; the rename itself is still atomic.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Write a new file with mode 0600 (used for drift backups). */
export function writePrivateFile(file: string, content: string): void {
  fs.writeFileSync(file, content, { encoding: 'utf8', mode: 0o600 });
  fs.chmodSync(file, 0o600);
}
