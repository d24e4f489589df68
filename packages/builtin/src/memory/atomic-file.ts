import {
  FileWriteError,
  UnsafePathError,
  readFileNoFollow,
  writeFileAtomic,
  writeNewFile,
} from '@hermes-memory/core';
import { normaliseNewlines } from './entries';

/** Result of a checked read: `ok: false` means the file exists but cannot be read or decoded. */
export interface RawRead {
  raw: string;
  ok: boolean;
  exists: boolean;
  /** Why it could not be read (`ok: false`): a symbolic link, not a file, permissions, invalid UTF-8. */
  problem?: string;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true }); // also strips a leading BOM

/**
 * Read a memory file, telling "missing" (empty, fine) apart from "unreadable" (permissions,
 * a directory in its place, invalid UTF-8) — an unreadable file must never be treated as empty.
 * The text is read as the Python agent reads it: BOM dropped, universal newlines. A symbolic link
 * is unreadable: following it would put any readable file into the prompt.
 */
export function readRawChecked(file: string): RawRead {
  let buf: Uint8Array | undefined;
  try {
    buf = readFileNoFollow(file);
  } catch (error) {
    return {
      raw: '',
      ok: false,
      exists: true,
      problem: error instanceof Error ? error.message : String(error),
    };
  }
  if (buf === undefined) return { raw: '', ok: true, exists: false };
  try {
    return { raw: normaliseNewlines(strictUtf8.decode(buf)), ok: true, exists: true };
  } catch {
    return { raw: '', ok: false, exists: true, problem: `${file} is not valid UTF-8.` };
  }
}

/** Temp files are `.mem_<random>.tmp`, the reference's names, so either side's leftovers are known to both. */
export const MEMORY_TEMP_PREFIX = '.mem_';

/**
 * Durable atomic replace through core's `writeFileAtomic`: every byte written and checked, fsync,
 * rename, folder fsync; a full disk or a file-size limit throws with the old file untouched.
 */
export function writeMemoryFile(file: string, content: string): void {
  writeFileAtomic(file, content, { tempPrefix: MEMORY_TEMP_PREFIX, createDirs: false });
}

/**
 * Save a drift backup at `base` (`MEMORY.md.bak.<unix seconds>`), created exclusively and never
 * through a link; when that name is taken (a second backup in the same second, or a planted
 * link), `base.1`, `base.2`, … Returns the path written.
 */
export function writeBackupFile(base: string, content: string): string {
  for (let n = 0; ; n++) {
    const file = n === 0 ? base : `${base}.${n}`;
    try {
      writeNewFile(file, content);
      return file;
    } catch (error) {
      const taken =
        (FileWriteError.isInstance(error) && error.code === 'EEXIST') || UnsafePathError.isInstance(error);
      if (!taken || n >= 9) throw error;
    }
  }
}
