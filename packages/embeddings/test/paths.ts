import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Root of this package (packages/embeddings). */
export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/**
 * MinishLab's own embedding of "hello world" with potion-base-2M (model2vec-rs test fixture, MIT):
 * the reference our Model2Vec port must reproduce.
 */
export const referenceHelloWorld = path.join(
  packageRoot,
  'test',
  'fixtures',
  'potion-base-2M-reference-hello-world.json',
);
/** The model folder shipped in this package. */
export const bundledAssets = path.join(packageRoot, 'assets', 'potion-base-2M-int8');
/** The generated tiny BERT fixture. */
export const tinyBertDir = path.join(packageRoot, 'test', 'fixtures', 'tiny-bert');
