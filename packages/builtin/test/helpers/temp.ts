import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach } from 'vitest';

const dirs: string[] = [];

/** A fresh HERMES_HOME removed after the test. */
export function tempHome(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-builtin-'));
  dirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

export const PACKAGE_ROOT = path.resolve(__dirname, '../..');
export const DIST_ENTRY = path.join(PACKAGE_ROOT, 'dist', 'index.js');
