/**
 * Packages under test, imported once per process and memoised. Module resolution re-checks the
 * file system on every `import()`, so while a sibling package is being rebuilt (its `dist/` briefly
 * gone) a repeated import would fail even though the module is already loaded; one import per
 * package per process avoids that.
 */
type PackageName =
  | '@hermes-memory/core'
  | '@hermes-memory/builtin'
  | '@hermes-memory/holographic'
  | '@hermes-memory/embeddings'
  | '@hermes-memory/provider-template-local'
  | '@hermes-memory/testkit';

const cache = new Map<string, Promise<unknown>>();

function importOnce(name: PackageName): Promise<Record<string, unknown>> {
  switch (name) {
    case '@hermes-memory/core':
      return import('@hermes-memory/core') as Promise<Record<string, unknown>>;
    case '@hermes-memory/builtin':
      return import('@hermes-memory/builtin') as Promise<Record<string, unknown>>;
    case '@hermes-memory/holographic':
      return import('@hermes-memory/holographic') as Promise<Record<string, unknown>>;
    case '@hermes-memory/embeddings':
      return import('@hermes-memory/embeddings') as Promise<Record<string, unknown>>;
    case '@hermes-memory/provider-template-local':
      return import('@hermes-memory/provider-template-local') as Promise<Record<string, unknown>>;
    case '@hermes-memory/testkit':
      return import('@hermes-memory/testkit') as Promise<Record<string, unknown>>;
  }
}

/** The package's exports as a plain record (callers check the shape they need). */
export function loadPackage(name: PackageName): Promise<Record<string, unknown>> {
  return loadModule(name, () => importOnce(name));
}

/**
 * Any module, imported once per process through `load` (a literal `() => import('<name>')`, so the
 * module keeps its types): the remote providers' bench entries load their package this way.
 */
export function loadModule<T>(name: string, load: () => Promise<T>): Promise<T> {
  let p = cache.get(name) as Promise<T> | undefined;
  if (!p) {
    p = load();
    cache.set(name, p);
    p.catch(() => cache.delete(name)); // a failed import may be retried later
  }
  return p;
}
