import childProcess from 'node:child_process';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

/**
 * Observes the environment (never the provider) while a hook runs: file system, sockets, child
 * processes and `fetch`. The functions are patched on Node's shared module objects and the ESM named
 * exports are re-synchronised, so providers see the patch however they imported `node:fs`.
 *
 * Three modes:
 * - `forbid`: every touch is recorded and throws, so it has no effect (used for `isAvailable`).
 * - `observe`: every touch is recorded and passes through (used for `prefetch`).
 * - `gate`: asynchronous I/O is recorded and HELD until `release()`; synchronous I/O is recorded and
 *   passes through (used for `syncTurn`: a hook that awaits its backend work cannot resolve while
 *   the gate is closed).
 */
export type IoTrapMode = 'forbid' | 'observe' | 'gate';

export interface IoTouch {
  /** `fs.appendFileSync`, `fs.promises.open`, `net.Socket.connect`, `fetch`, `child_process.spawn`, ... */
  api: string;
  /** True for calls that block the event loop (`*Sync`). */
  sync: boolean;
  /** The first argument when it is a path or URL, for the failure message. */
  target?: string;
}

export interface IoTrap {
  readonly touches: readonly IoTouch[];
  /** Asynchronous operations currently held by a `gate` trap. */
  readonly held: number;
  /** Let held operations proceed, in the order they were made. */
  release(): void;
  /** Restore every patched function. Idempotent; releases held operations first. */
  restore(): void;
}

/** Thrown into the provider by a `forbid` trap. */
export class IoTrapError extends Error {
  constructor(api: string) {
    super(`I/O is not allowed here (${api})`);
    this.name = 'IoTrapError';
  }
}

type AnyFn = (...args: unknown[]) => unknown;
type Patchable = Record<string, unknown>;

const FS_SYNC = [
  'openSync',
  'readFileSync',
  'writeFileSync',
  'appendFileSync',
  'readSync',
  'writeSync',
  'fsyncSync',
  'fdatasyncSync',
  'existsSync',
  'statSync',
  'lstatSync',
  'readdirSync',
  'mkdirSync',
  'mkdtempSync',
  'accessSync',
  'renameSync',
  'unlinkSync',
  'rmSync',
  'copyFileSync',
  'opendirSync',
  'chmodSync',
  'truncateSync',
] as const;

const FS_CALLBACK = [
  'open',
  'readFile',
  'writeFile',
  'appendFile',
  'read',
  'write',
  'fsync',
  'fdatasync',
  'stat',
  'lstat',
  'readdir',
  'mkdir',
  'access',
  'rename',
  'unlink',
  'rm',
  'copyFile',
  'chmod',
  'truncate',
  'createReadStream',
  'createWriteStream',
] as const;

const FS_PROMISES = [
  'open',
  'readFile',
  'writeFile',
  'appendFile',
  'stat',
  'lstat',
  'readdir',
  'mkdir',
  'mkdtemp',
  'access',
  'rename',
  'unlink',
  'rm',
  'copyFile',
  'chmod',
  'truncate',
] as const;

const CHILD_SYNC = ['execSync', 'execFileSync', 'spawnSync'] as const;
const CHILD_ASYNC = ['exec', 'execFile', 'spawn', 'fork'] as const;

let active = false;

/**
 * Start observing. Only one trap may be active at a time: the patch is process-wide, so the suite
 * runs trapped sections one after another.
 */
export function startIoTrap(mode: IoTrapMode): IoTrap {
  if (active) throw new Error('An I/O trap is already active; trapped sections cannot nest.');
  active = true;
  const touches: IoTouch[] = [];
  const heldQueue: Array<() => void> = [];
  const restorers: Array<() => void> = [];
  let released = mode !== 'gate';
  let nested = 0;
  let restored = false;

  const record = (api: string, sync: boolean, args: readonly unknown[]): void => {
    const first = args[0];
    const touch: IoTouch = { api, sync };
    if (typeof first === 'string') touch.target = first;
    else if (first instanceof URL) touch.target = first.href;
    else if (typeof Request !== 'undefined' && first instanceof Request) touch.target = first.url;
    touches.push(touch);
  };

  const patch = (owner: Patchable, key: string, make: (original: AnyFn) => AnyFn): void => {
    const original = owner[key];
    if (typeof original !== 'function') return;
    owner[key] = make(original as AnyFn);
    restorers.push(() => {
      owner[key] = original;
    });
  };

  // Synchronous calls: record; forbid throws, the other modes pass through (they block the loop
  // anyway, so the caller sees them as `sync: true` touches).
  const syncWrapper =
    (api: string) =>
    (original: AnyFn): AnyFn =>
      function (this: unknown, ...args: unknown[]) {
        // Node implements some sync calls with others (appendFileSync → writeFileSync → openSync):
        // record only the call the provider made.
        if (nested > 0) return original.apply(this, args);
        record(api, true, args);
        if (mode === 'forbid') throw new IoTrapError(api);
        nested += 1;
        try {
          return original.apply(this, args);
        } finally {
          nested -= 1;
        }
      };

  // Promise-returning calls: forbid rejects, gate holds until release.
  const promiseWrapper =
    (api: string) =>
    (original: AnyFn): AnyFn =>
      function (this: unknown, ...args: unknown[]) {
        record(api, false, args);
        if (mode === 'forbid') return Promise.reject(new IoTrapError(api));
        if (released) return original.apply(this, args);
        return new Promise((resolve, reject) => {
          heldQueue.push(() => {
            try {
              Promise.resolve(original.apply(this, args)).then(resolve, reject);
            } catch (error) {
              reject(error);
            }
          });
        });
      };

  // Callback-style calls and calls returning an object (streams, child processes): forbid throws;
  // gate holds only callback-style calls (a stream or ChildProcess must be returned synchronously).
  const callbackWrapper =
    (api: string, holdable: boolean) =>
    (original: AnyFn): AnyFn =>
      function (this: unknown, ...args: unknown[]) {
        record(api, false, args);
        if (mode === 'forbid') throw new IoTrapError(api);
        if (released || !holdable || typeof args[args.length - 1] !== 'function') {
          return original.apply(this, args);
        }
        heldQueue.push(() => original.apply(this, args));
        return undefined;
      };

  const fsObject = fs as unknown as Patchable;
  for (const key of FS_SYNC) patch(fsObject, key, syncWrapper(`fs.${key}`));
  for (const key of FS_CALLBACK) {
    const holdable = key !== 'createReadStream' && key !== 'createWriteStream';
    patch(fsObject, key, callbackWrapper(`fs.${key}`, holdable));
  }
  const fsPromises = fs.promises as unknown as Patchable;
  for (const key of FS_PROMISES) patch(fsPromises, key, promiseWrapper(`fs.promises.${key}`));
  const fileHandle = fileHandlePrototype();
  if (fileHandle) {
    for (const key of [
      'read',
      'write',
      'writeFile',
      'appendFile',
      'readFile',
      'sync',
      'datasync',
      'truncate',
    ]) {
      patch(fileHandle, key, promiseWrapper(`FileHandle.${key}`));
    }
  }

  const child = childProcess as unknown as Patchable;
  for (const key of CHILD_SYNC) patch(child, key, syncWrapper(`child_process.${key}`));
  for (const key of CHILD_ASYNC) patch(child, key, callbackWrapper(`child_process.${key}`, false));

  // Sockets are observed at connect time (every HTTP client, `net.connect` and TLS goes through it).
  // A connect cannot be delayed without breaking the socket's state machine, so `gate` only
  // records it; `fetch` (the usual HTTP client) is held instead.
  const socketProto = net.Socket.prototype as unknown as Patchable;
  patch(
    socketProto,
    'connect',
    (original) =>
      function (this: unknown, ...args: unknown[]) {
        const first = args[0];
        const target =
          typeof first === 'object' && first !== null
            ? `${String((first as Record<string, unknown>).host ?? (first as Record<string, unknown>).path ?? '')}:${String((first as Record<string, unknown>).port ?? '')}`
            : String(first);
        touches.push({ api: 'net.Socket.connect', sync: false, target });
        if (mode === 'forbid') throw new IoTrapError('net.Socket.connect');
        return original.apply(this, args);
      },
  );

  const global = globalThis as unknown as Patchable;
  patch(global, 'fetch', promiseWrapper('fetch'));

  syncBuiltinESMExports();

  const release = (): void => {
    if (released) return;
    released = true;
    for (const run of heldQueue.splice(0)) run();
  };

  return {
    get touches() {
      return touches;
    },
    get held() {
      return heldQueue.length;
    },
    release,
    restore() {
      if (restored) return;
      restored = true;
      for (const undo of restorers.reverse()) undo();
      syncBuiltinESMExports();
      active = false;
      // Held work runs with the real functions again (the wrappers captured the originals).
      release();
    },
  };
}

let cachedFileHandleProto: Patchable | null | undefined;

/** Node does not export the FileHandle class; borrow its prototype from a handle on stdin's fd. */
function fileHandlePrototype(): Patchable | null {
  if (cachedFileHandleProto !== undefined) return cachedFileHandleProto;
  cachedFileHandleProto = null;
  const probe = (fs.promises as unknown as { FileHandle?: { prototype: Patchable } }).FileHandle;
  if (probe) cachedFileHandleProto = probe.prototype;
  return cachedFileHandleProto;
}

/** Prime the FileHandle prototype lookup once (needs one real `open`, done outside any trap). */
export async function primeIoTrap(): Promise<void> {
  if (cachedFileHandleProto) return;
  const handle = await fs.promises.open(process.execPath, 'r');
  try {
    cachedFileHandleProto = Object.getPrototypeOf(handle) as Patchable;
  } finally {
    await handle.close();
  }
}

/** Describe touches for a failure message: `fs.openSync(/x/y), fetch(http://...)`. */
export function formatTouches(touches: readonly IoTouch[], limit = 5): string {
  const shown = touches.slice(0, limit).map((t) => (t.target ? `${t.api}(${t.target})` : t.api));
  const more = touches.length > limit ? ` and ${touches.length - limit} more` : '';
  return shown.join(', ') + more;
}
