import fs from 'node:fs';
import { UnsafePathError } from '../errors/memory-error';

const C = fs.constants;
/** 0 where the platform has no such flag (Windows); the lstat checks then stand in for it. */
export const O_NOFOLLOW: number = C.O_NOFOLLOW ?? 0;
/** Opening a FIFO for reading would block until a writer appears; with O_NONBLOCK it returns at once. */
const O_NONBLOCK: number = C.O_NONBLOCK ?? 0;

export function errnoCode(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : 'EUNKNOWN';
}

/** `lstat`, or undefined when the path does not exist. Never follows a link. */
export function lstatIfExists(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/** Throw UnsafePathError when `file` exists as a symbolic link or as anything but a regular file. */
export function assertRegularFileOrMissing(file: string): void {
  const st = lstatIfExists(file);
  if (!st) return;
  if (st.isSymbolicLink()) throw new UnsafePathError(file, 'symlink');
  if (!st.isFile()) throw new UnsafePathError(file, 'not-a-file');
}

/**
 * Read a whole file without following a symbolic link in its last component; undefined when it
 * does not exist. A link, a FIFO, a device or a folder is refused with UnsafePathError, so a
 * planted link can never put another file's content into the prompt.
 */
export function readFileNoFollow(file: string): Uint8Array | undefined {
  if (O_NOFOLLOW === 0) assertRegularFileOrMissing(file);
  let fd: number;
  try {
    fd = fs.openSync(file, C.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT') return undefined;
    // Linux and macOS answer ELOOP for a link under O_NOFOLLOW, FreeBSD EMLINK.
    if ((code === 'ELOOP' || code === 'EMLINK') && lstatIfExists(file)?.isSymbolicLink())
      throw new UnsafePathError(file, 'symlink');
    throw error;
  }
  try {
    if (!fs.fstatSync(fd).isFile()) throw new UnsafePathError(file, 'not-a-file');
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
