import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { FileWriteError, type FileWriteStage, MemoryError, UnsafePathError } from '../errors/memory-error';
import { ensureDir } from './dirs';
import { O_NOFOLLOW, assertRegularFileOrMissing, errnoCode, lstatIfExists } from './no-follow';

const C = fs.constants;
const CREATE_EXCL = C.O_WRONLY | C.O_CREAT | C.O_EXCL | O_NOFOLLOW;

export interface AtomicWriteOptions {
  /** File mode (default 0600: memory, config and secrets are private). */
  mode?: number;
  /**
   * The temp file is `<tempPrefix><random>.tmp` in the target's folder (default `.<name>.`). The
   * builtin store passes `.mem_`, the Python reference's prefix, so either side's leftovers are
   * recognised by both.
   */
  tempPrefix?: string;
  /** Create the folder (0700) when missing (default true). */
  createDirs?: boolean;
  /** With `createDirs`: folders strictly below `root` must not be links (see `ensureDir`). */
  root?: string;
  /**
   * Called when the exact mode cannot be set (a filesystem without permissions, e.g. some network
   * or FAT mounts): the write then goes on — the file was created with `mode` minus the umask, so
   * never wider. Without it, such a failure fails the write.
   */
  onModeError?: (error: Error) => void;
}

/**
 * Replace `file` with `data` so that a crash, a full disk (ENOSPC), a file-size limit (EFBIG) or
 * a short write can never leave a torn or truncated file: the data goes to a fresh temp file
 * (created exclusively, never through a link) in the same folder, every byte is written and
 * checked, the temp file is fsynced and renamed over `file`, and the folder is fsynced. Any
 * failure before the rename removes the temp file and throws FileWriteError with the previous
 * file untouched. A symbolic link (or a non-file) at `file` is refused with UnsafePathError,
 * never followed and never silently replaced.
 */
export function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): void {
  const target = path.resolve(file);
  const dir = path.dirname(target);
  const mode = options.mode ?? 0o600;
  if (options.createDirs !== false) ensureDir(dir, { root: options.root ?? dir });
  assertRegularFileOrMissing(target);
  const bytes = toBytes(data);
  const prefix = options.tempPrefix ?? `.${path.basename(target)}.`;
  const { fd, tmp } = createTemp(dir, prefix, mode, target);
  try {
    writeAndClose(fd, bytes, target, mode, true, options.onModeError);
    fs.renameSync(tmp, target);
  } catch (error) {
    try {
      fs.unlinkSync(tmp);
    } catch {}
    throw asWriteError(error, target, 'rename');
  }
  fsyncDir(dir, target);
}

/**
 * Create `file` exclusively (O_CREAT|O_EXCL|O_NOFOLLOW: an existing file or a planted link is
 * never opened) and write all of `data`; on any failure the partial file is removed and
 * FileWriteError thrown. `code === 'EEXIST'` tells a taken name apart from a failed write.
 * With `durable` (default true) the file is fsynced before it is closed.
 */
export function writeNewFile(
  file: string,
  data: string | Uint8Array,
  options: { mode?: number; durable?: boolean } = {},
): void {
  const target = path.resolve(file);
  const mode = options.mode ?? 0o600;
  let fd: number;
  try {
    fd = fs.openSync(target, CREATE_EXCL, mode);
  } catch (error) {
    if (errnoCode(error) === 'EEXIST' && lstatIfExists(target)?.isSymbolicLink())
      throw new UnsafePathError(target, 'symlink');
    throw asWriteError(error, target, 'open');
  }
  try {
    writeAndClose(fd, toBytes(data), target, mode, options.durable !== false);
  } catch (error) {
    try {
      fs.unlinkSync(target);
    } catch {}
    throw error;
  }
}

/** Errors from fsync on a folder that only mean "this filesystem does not do that". */
const DIR_SYNC_UNSUPPORTED = new Set(['EINVAL', 'ENOTSUP', 'EOPNOTSUPP', 'EBADF', 'EISDIR', 'EPERM']);

/**
 * fsync a folder so a rename in it survives a power loss. A filesystem that cannot sync folders
 * is accepted; a real failure (EIO, ENOSPC) throws FileWriteError with `committed: true`.
 */
export function fsyncDir(dir: string, forFile: string = dir): void {
  if (process.platform === 'win32') return; // folders cannot be opened for sync there
  let fd: number;
  try {
    fd = fs.openSync(dir, C.O_RDONLY);
  } catch {
    return;
  }
  try {
    fs.fsyncSync(fd);
  } catch (error) {
    const code = errnoCode(error);
    if (!DIR_SYNC_UNSUPPORTED.has(code))
      throw new FileWriteError({ path: forFile, stage: 'fsync-dir', code, committed: true, cause: error });
  } finally {
    closeQuietly(fd);
  }
}

function toBytes(data: string | Uint8Array): Uint8Array {
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
}

function createTemp(dir: string, prefix: string, mode: number, target: string): { fd: number; tmp: string } {
  for (let attempt = 0; ; attempt++) {
    const tmp = path.join(dir, `${prefix}${randomBytes(8).toString('hex')}.tmp`);
    try {
      return { fd: fs.openSync(tmp, CREATE_EXCL, mode), tmp };
    } catch (error) {
      // A random name that exists is someone else's (or a planted link): pick another.
      if (errnoCode(error) === 'EEXIST' && attempt < 4) continue;
      throw asWriteError(error, target, 'open');
    }
  }
}

/**
 * write(2) may accept fewer bytes than asked when the disk fills or a file-size limit is reached;
 * the next call then fails with ENOSPC / EFBIG. Loop until every byte is written, and check the
 * size the kernel reports.
 */
function writeAll(fd: number, bytes: Uint8Array, target: string): void {
  let offset = 0;
  while (offset < bytes.length) {
    const n = fs.writeSync(fd, bytes, offset, bytes.length - offset);
    if (n <= 0) throw new FileWriteError({ path: target, stage: 'write', code: 'SHORT_WRITE' });
    offset += n;
  }
  if (fs.fstatSync(fd).size !== bytes.length)
    throw new FileWriteError({ path: target, stage: 'write', code: 'SHORT_WRITE' });
}

/**
 * Write every byte, fsync (when `durable`), set the exact mode and close. On failure the fd is
 * closed and a FileWriteError names the stage; the caller removes the file.
 */
function writeAndClose(
  fd: number,
  bytes: Uint8Array,
  target: string,
  mode: number,
  durable: boolean,
  onModeError?: (error: Error) => void,
): void {
  let stage: FileWriteStage = 'write';
  let open = true;
  try {
    writeAll(fd, bytes, target);
    if (durable) {
      stage = 'fsync';
      fs.fsyncSync(fd);
    }
    setMode(fd, mode, onModeError);
    stage = 'close';
    open = false;
    fs.closeSync(fd);
  } catch (error) {
    if (open) closeQuietly(fd);
    throw asWriteError(error, target, stage);
  }
}

function setMode(fd: number, mode: number, onModeError?: (error: Error) => void): void {
  try {
    fs.fchmodSync(fd, mode); // exact mode whatever the umask
  } catch (error) {
    if (process.platform === 'win32') return;
    if (!onModeError) throw error;
    onModeError(error as Error);
  }
}

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {}
}

function asWriteError(error: unknown, target: string, stage: FileWriteStage): Error {
  if (MemoryError.isInstance(error)) return error;
  return new FileWriteError({ path: target, stage, code: errnoCode(error), cause: error });
}
