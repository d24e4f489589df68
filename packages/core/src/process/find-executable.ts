import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Env } from '../config/settings';

export interface FindExecutableOptions {
  /** Where `PATH` is read from (the provider's env). Default `process.env`. */
  env?: Env;
  /** Places to try after `PATH`, e.g. `~/.brv-cli/bin/brv` ("~" is expanded). */
  candidates?: readonly string[];
}

const cache = new Map<string, string | null>();

function expand(p: string): string {
  return p === '~' || p.startsWith('~/') ? path.join(os.homedir(), p.slice(1)) : p;
}

function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The absolute path of an executable: a path given as is, else the first match on `PATH`, else
 * the first existing candidate; undefined when none. Answers are cached (found and not found) per
 * name, PATH and candidates, so a provider resolves once — when it is created — and
 * `isAvailable()` reads the cached answer with no I/O. Call `forgetExecutable` when a spawn later
 * reports ENOENT (the reference resets its cache the same way).
 */
export function findExecutable(name: string, options: FindExecutableOptions = {}): string | undefined {
  const envPath = (options.env ?? process.env).PATH ?? '';
  const candidates = (options.candidates ?? []).map(expand);
  const key = JSON.stringify([name, envPath, candidates]);
  const cached = cache.get(key);
  if (cached !== undefined) return cached ?? undefined;
  let found: string | undefined;
  if (name.includes('/')) {
    const absolute = path.resolve(expand(name));
    if (isExecutableFile(absolute)) found = absolute;
  } else {
    for (const dir of envPath.split(path.delimiter)) {
      if (dir === '') continue;
      const file = path.join(dir, name);
      if (isExecutableFile(file)) {
        found = file;
        break;
      }
    }
  }
  found ??= candidates.find(isExecutableFile);
  cache.set(key, found ?? null);
  return found;
}

/** Drop cached answers for `name` (every PATH), or all of them. */
export function forgetExecutable(name?: string): void {
  if (name === undefined) {
    cache.clear();
    return;
  }
  for (const key of [...cache.keys()]) if ((JSON.parse(key) as string[])[0] === name) cache.delete(key);
}
