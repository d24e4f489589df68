import type { Embedder } from '@hermes-memory/core';
import { loadPackage } from '../packages';
import { MODEL2VEC_DIR_REL, sharedPath } from '../paths';

/**
 * Load the bundled Model2Vec embedder from `@hermes-memory/embeddings`. The package is being written in
 * parallel, so the module is inspected at run time: a missing or changed export is reported as
 * "unavailable" with the reason instead of breaking the other suites.
 */
export async function loadModel2VecEmbedder(): Promise<Embedder> {
  const mod = await loadPackage('@hermes-memory/embeddings');
  const candidates: Array<() => unknown> = [];
  for (const name of ['createDefaultEmbedder', 'createModel2VecEmbedder']) {
    const factory = mod[name];
    if (typeof factory === 'function') candidates.push(() => (factory as () => unknown)());
  }
  const cls = mod['Model2VecEmbedder'] as
    | (Record<string, unknown> & (new (...a: unknown[]) => unknown))
    | undefined;
  if (typeof cls === 'function') {
    for (const name of ['load', 'fromBundled', 'create', 'default']) {
      const fn = cls[name];
      if (typeof fn === 'function') candidates.push(() => (fn as (...a: unknown[]) => unknown).call(cls));
    }
    candidates.push(() => new cls());
    candidates.push(() => new cls({ modelDir: sharedPath(...MODEL2VEC_DIR_REL) }));
  }
  if (candidates.length === 0) throw new Error('@hermes-memory/embeddings exports no Model2VecEmbedder yet');
  let lastError: unknown = null;
  for (const make of candidates) {
    try {
      const e = (await make()) as Partial<Embedder> | null;
      if (e && typeof e.embed === 'function') {
        await e.embed(['warm up']);
        return e as Embedder;
      }
    } catch (err) {
      lastError = err;
    }
  }
  throw new Error(
    `cannot construct Model2VecEmbedder: ${lastError instanceof Error ? lastError.message : String(lastError)}`,
  );
}
