import type { FakeHandler, FakeServer } from '@hermes-memory/testkit/http';

/**
 * Held routes: a test holds the answers to some requests (a slow backend, at a moment of its
 * choosing) and releases them later — deterministic, unlike a delay, and each held request then
 * completes normally.
 */
export interface HoldControls {
  /**
   * Hold answers to requests matching `target` — `'POST /search'` (method and path suffix) or a
   * bare path suffix — until the returned function is called.
   */
  hold(target: string): () => void;
  /** Requests waiting on a hold right now. */
  heldRequests(): number;
}

/** A `route` function for `server` whose handlers wait on holds first, and the controls. */
export function holdableRoutes<S>(server: FakeServer<S>): {
  route: (method: string, pattern: string, handler: FakeHandler<S>) => void;
  controls: HoldControls;
} {
  const active = new Set<{ method?: string; suffix: string; promise: Promise<void> }>();
  let held = 0;
  const trim = (path: string) => path.replace(/\/+$/, '');
  const gate = (method: string, path: string): Promise<void> | undefined => {
    for (const entry of active) {
      if (entry.method && entry.method !== method) continue;
      if (!trim(path).endsWith(trim(entry.suffix))) continue;
      held += 1;
      return entry.promise.finally(() => {
        held -= 1;
      });
    }
    return undefined;
  };
  return {
    route(method, pattern, handler) {
      server.route(method, pattern, async (req, state) => {
        await gate(req.method, req.path);
        return handler(req, state);
      });
    },
    controls: {
      hold(target) {
        const [method, suffix] = target.includes(' ') ? target.split(/\s+/, 2) : [undefined, target];
        let release!: () => void;
        const promise = new Promise<void>((resolve) => {
          release = resolve;
        });
        const entry = { ...(method ? { method: method.toUpperCase() } : {}), suffix: suffix ?? '', promise };
        active.add(entry);
        return () => {
          active.delete(entry);
          release();
        };
      },
      heldRequests: () => held,
    },
  };
}
