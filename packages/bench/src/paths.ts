import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The monorepo root: the nearest ancestor of this file holding `pnpm-workspace.yaml`. */
export function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (fs.existsSync(path.join(dir, 'pnpm-workspace.yaml'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('bench: cannot find the repository root (pnpm-workspace.yaml)');
    dir = parent;
  }
}

/** `../shared/<rel>` relative to the repository root (development data; never shipped). */
export function sharedPath(...rel: string[]): string {
  return path.resolve(repoRoot(), '..', 'shared', ...rel);
}

export const LOCOMO_FILE_REL = ['bench', 'locomo-dev.json'] as const;
export const LOCOMO_AUDIT_DIR_REL = ['bench', 'locomo-audit'] as const;
export const SCANNER_CORPUS_REL = ['bench', 'scanner', 'dev.jsonl'] as const;
export const MODEL2VEC_DIR_REL = ['models', 'potion-base-2M-int8'] as const;

export function defaultOutDir(): string {
  return path.join(repoRoot(), 'docs', 'benchmarks');
}
