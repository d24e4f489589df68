import type { MemoryProvider } from '@hermes-memory/core';
import type { FakeFault } from '@hermes-memory/testkit/http';
import { tempHome } from '../../providers';
import type { RemoteBackend } from '../remote';

/** What every provider's `./testing` fake offers (the testkit's fake-server base). */
export interface FakeLike {
  readonly url: string;
  fail(fault: FakeFault): unknown;
  clearFaults(): void;
  close(): Promise<void>;
}

/**
 * A backend over a started fake: `create(url, home)` builds one provider against it. Each backend
 * gets its own empty HERMES_HOME, so no `<id>.json` of the machine's user is read.
 */
export function fakeBackend(
  id: string,
  fake: FakeLike,
  create: (url: string, home: string) => MemoryProvider,
): RemoteBackend {
  const home = tempHome(`hm-bench-${id}-`);
  return {
    create: () => create(fake.url, home.home),
    failAll: (fault) => fake.fail({ ...fault, count: 1_000_000 }),
    clearFaults: () => fake.clearFaults(),
    close: async () => {
      await fake.close();
      home.cleanup();
    },
  };
}
