import { constants as osConstants } from 'node:os';

/**
 * `flock(2)` from the C library, through koffi (a maintained FFI with prebuilt binaries for every
 * mainstream platform, so nothing compiles at install). This is the lock the Python agent takes on
 * `MEMORY.md.lock` (`fcntl.flock`), so the two programs exclude each other. See
 * docs/decisions/0304-memory-file-lock-shared-with-python.md.
 */
export interface Flock {
  /** Take an exclusive lock without blocking: true when taken, false when another holder has it. */
  tryLockExclusive(fd: number): boolean;
  unlock(fd: number): void;
}

export type FlockAvailability = { ok: true; flock: Flock } | { ok: false; reason: string };

// Identical on Linux, macOS and the BSDs.
const LOCK_EX = 2;
const LOCK_NB = 4;
const LOCK_UN = 8;
const { EAGAIN, EWOULDBLOCK, EINTR } = osConstants.errno;

interface KoffiLike {
  load(path: string | null): { func(signature: string): (...args: number[]) => number };
  errno(): number;
}

let loading: Promise<FlockAvailability> | undefined;

/** Load flock once per process; never throws (the reason is reported instead). */
export function loadFlock(): Promise<FlockAvailability> {
  loading ??= load();
  return loading;
}

async function load(): Promise<FlockAvailability> {
  if (process.platform === 'win32')
    return {
      ok: false,
      reason: 'flock does not exist on Windows (the Python agent uses msvcrt.locking there)',
    };
  let koffi: KoffiLike;
  try {
    const mod = (await import('koffi')) as { default?: KoffiLike } & Partial<KoffiLike>;
    koffi = (mod.default ?? mod) as KoffiLike;
  } catch (error) {
    return { ok: false, reason: `the koffi package could not be loaded (${firstLine(error)})` };
  }
  let call: (fd: number, op: number) => number;
  try {
    // The process's own symbols include the C library's: no library name to guess (glibc, musl, libSystem).
    call = koffi.load(null).func('int flock(int fd, int operation)');
  } catch (error) {
    return { ok: false, reason: `flock could not be bound (${firstLine(error)})` };
  }
  const flock: Flock = {
    tryLockExclusive(fd) {
      for (;;) {
        if (call(fd, LOCK_EX | LOCK_NB) === 0) return true;
        const errno = koffi.errno();
        if (errno === EINTR) continue;
        if (errno === EWOULDBLOCK || errno === EAGAIN) return false;
        throw Object.assign(new Error(`flock failed (errno ${errno})`), { errno });
      }
    },
    unlock(fd) {
      call(fd, LOCK_UN);
    },
  };
  return { ok: true, flock };
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}
