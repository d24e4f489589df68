/**
 * `logging: true`: one JSON line per turn in `~/.honcho/injection.log` (owner-only), recording what
 * was injected. Written with async I/O and never awaited, so the hot path does not wait on the disk.
 */
import { appendFile, chmod, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '@hermes-memory/core';

export interface InjectionEntry {
  ts: string;
  session: string;
  turn: number;
  query: string;
  base_chars: number;
  dialectic_chars: number;
  injected: string;
}

export function logInjection(userHome: string, entry: InjectionEntry, logger: Logger): void {
  const dir = path.join(userHome, '.honcho');
  const file = path.join(dir, 'injection.log');
  mkdir(dir, { recursive: true, mode: 0o700 })
    .then(() => appendFile(file, `${JSON.stringify(entry)}\n`, { mode: 0o600 }))
    .then(() => chmod(file, 0o600))
    .catch((error: unknown) =>
      logger.debug(
        `Honcho: injection log not written: ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
}
