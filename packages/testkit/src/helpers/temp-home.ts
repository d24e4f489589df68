import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TempHermesHome {
  /** Absolute path of the new, empty directory (mode 0700). */
  readonly path: string;
  /** Remove the directory and everything in it. Idempotent; never throws. */
  cleanup(): void;
}

/**
 * A fresh HERMES_HOME under the OS temp folder, for one test. Call `cleanup()` in `afterEach` (or a
 * `finally`): it removes the whole tree.
 *
 * ```ts
 * const home = tempHermesHome();
 * afterEach(() => home.cleanup());
 * ```
 */
export function tempHermesHome(prefix = 'hermes-home-'): TempHermesHome {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dir, 0o700);
  let removed = false;
  return {
    path: dir,
    cleanup() {
      if (removed) return;
      removed = true;
      try {
        fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
      } catch {
        // A leftover temp folder is not worth failing a test run for.
      }
    },
  };
}
