import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Root of this package (packages/embeddings). */
export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Root of the monorepo. */
export const repoRoot = path.resolve(packageRoot, '../..');
/** The development-only shared folder that sits beside the repository. */
export const sharedDir = path.resolve(repoRoot, '../shared');
/** The model folder shipped in this package. */
export const bundledAssets = path.join(packageRoot, 'assets', 'potion-base-2M-int8');
/** The generated tiny BERT fixture. */
export const tinyBertDir = path.join(packageRoot, 'test', 'fixtures', 'tiny-bert');
