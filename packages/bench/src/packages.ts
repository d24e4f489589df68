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
  | '@hermes-memory/testkit'
  | '@hermes-memory/mem0'
  | '@hermes-memory/mem0/testing'
  | '@hermes-memory/supermemory'
  | '@hermes-memory/supermemory/testing'
  | '@hermes-memory/honcho'
  | '@hermes-memory/honcho/testing';

const cache = new Map<PackageName, Promise<Record<string, unknown>>>();

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
    case '@hermes-memory/mem0':
      return import('@hermes-memory/mem0') as Promise<Record<string, unknown>>;
    case '@hermes-memory/mem0/testing':
      return import('@hermes-memory/mem0/testing') as Promise<Record<string, unknown>>;
    case '@hermes-memory/supermemory':
      return import('@hermes-memory/supermemory') as Promise<Record<string, unknown>>;
    case '@hermes-memory/supermemory/testing':
      return import('@hermes-memory/supermemory/testing') as Promise<Record<string, unknown>>;
    case '@hermes-memory/honcho':
      return import('@hermes-memory/honcho') as Promise<Record<string, unknown>>;
    case '@hermes-memory/honcho/testing':
      return import('@hermes-memory/honcho/testing') as Promise<Record<string, unknown>>;
  }
}

/** The package's exports as a plain record (callers check the shape they need). */
export function loadPackage(name: PackageName): Promise<Record<string, unknown>> {
  let p = cache.get(name);
  if (!p) {
    p = importOnce(name);
    cache.set(name, p);
    p.catch(() => cache.delete(name)); // a failed import may be retried later
  }
  return p;
}
