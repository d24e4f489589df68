import type { ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { runPythonJson, spawnPython } from '@hermes-memory/testkit';
import { PACKAGE_ROOT } from './temp';

export { requirePython } from '@hermes-memory/testkit';

/** The reference-protocol client the compatibility tests race against (test/python/memory_file.py). */
export const MEMORY_FILE_PY = path.join(PACKAGE_ROOT, 'test', 'python', 'memory_file.py');

/** Run one memory_file.py command and parse its JSON answer. */
export function py<T = Record<string, unknown>>(...args: string[]): Promise<T> {
  return runPythonJson<T>(MEMORY_FILE_PY, ...args);
}

/** Start a long-running memory_file.py command (for `hold`). */
export function pySpawn(...args: string[]): ChildProcess {
  return spawnPython(MEMORY_FILE_PY, ...args);
}
