import { type MaybePromise, MemoryProvider } from '@hermes-memory/core';
import type { FakeFault } from '@hermes-memory/testkit/http';
import type { RemoteProviderEntry } from '../remote';

/**
 * Manager overhead: a provider that does nothing, so what the turn costs is `MemoryManager`
 * itself (queues, deadlines, health, the idle gaps between turns). Its "faults" are its own and hit
 * the background hooks, as a backend's would (recall is served from what is ready, here nothing):
 * with a status fault `syncTurn` and `queuePrefetch` reject at once; with a timeout they hang and
 * ignore their signal, as a call through an SDK that takes none would.
 */
class NoopProvider extends MemoryProvider {
  readonly name = 'noop';
  constructor(private readonly fault: () => FakeFault | undefined) {
    super();
  }
  isAvailable(): boolean {
    return true;
  }
  initialize(): void {}
  getToolSchemas() {
    return [];
  }
  override queuePrefetch(): MaybePromise<void> {
    return this.act();
  }
  override syncTurn(): MaybePromise<void> {
    return this.act();
  }
  private act(): MaybePromise<void> {
    const fault = this.fault();
    if (!fault) return;
    if (fault.type === 'timeout') return new Promise<void>(() => {});
    return Promise.reject(new Error('noop: injected failure'));
  }
}

export const noop: RemoteProviderEntry = {
  name: 'noop',
  against: 'manager overhead',
  async start() {
    let fault: FakeFault | undefined;
    return {
      create: () => new NoopProvider(() => fault),
      failAll: (f) => {
        fault = f;
      },
      clearFaults: () => {
        fault = undefined;
      },
      close: async () => {},
    };
  },
};
