import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

/** Prepares recall but keys the cache wrongly, so prefetch never serves it. */
class PrefetchEmpty extends GoodProvider {
  override prefetch(query: string): string {
    return this.prepared.get(query.toUpperCase()) ?? '';
  }
}

export const prefetchEmpty: BrokenCase = {
  check: 'prefetch.serves-queued',
  message: /after queuePrefetch did not return the seeded text/,
  harness: harnessFor(() => new PrefetchEmpty()),
};
