import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SettingsError } from '@hermes-memory/core';

/** Folder name of the model shipped inside this package. */
export const BUNDLED_MODEL_NAME = 'potion-base-2M-int8';
/** Dimensions of the bundled model (known without loading it). */
export const BUNDLED_MODEL_DIMENSIONS = 64;
const BUNDLED_WEIGHTS_FILE = 'potion-base-2M.bin';

let cached: string | undefined;

/**
 * Absolute path of the bundled model folder. Resolved from this module's own location, walking up
 * to the package root, so it works from `dist/index.js`, `dist/index.cjs` (tsup shims
 * `import.meta.url` there) and from the TypeScript sources under test.
 */
export function bundledModelDir(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 5; depth++) {
    const candidate = join(dir, 'assets', BUNDLED_MODEL_NAME);
    if (existsSync(join(candidate, BUNDLED_WEIGHTS_FILE))) {
      cached = candidate;
      return candidate;
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new SettingsError(
    'modelPath',
    `The bundled Model2Vec model (assets/${BUNDLED_MODEL_NAME}) was not found next to @hermes-memory/embeddings. ` +
      'If you bundle this package, copy its assets/ folder along or pass `modelPath`.',
  );
}
