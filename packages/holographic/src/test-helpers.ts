import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { FactStore, type FactStoreOptions } from './store';

const dirs: string[] = [];

/** A temp dir removed after the test. */
export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-holo-test-'));
  dirs.push(dir);
  return dir;
}

const stores: FactStore[] = [];

/** A FactStore closed after the test; its file is `memory_store.db` in a fresh temp dir unless `dbPath` is given. */
export function tempStore(options: Partial<FactStoreOptions> = {}): FactStore {
  const store = new FactStore({ dbPath: path.join(tempDir(), 'memory_store.db'), ...options });
  stores.push(store);
  return store;
}

afterEach(() => {
  // Stores first: their files live in the dirs removed next.
  for (const s of stores.splice(0)) s.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
