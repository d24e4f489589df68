import fs from 'node:fs';
import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

/** Ignores what queuePrefetch prepared and re-reads the file on the hot path. */
class PrefetchDoesIo extends GoodProvider {
  override prefetch(query: string): string {
    const raw = fs.readFileSync(this.file, 'utf8');
    return raw.includes(query.split(' ')[0]!) ? this.search(query) : '';
  }
}

export const prefetchDoesIo: BrokenCase = {
  check: 'prefetch.serves-queued',
  message:
    /prefetch\(\) did backend work although queuePrefetch\(\) had prepared the result: fs\.readFileSync/,
  harness: harnessFor(() => new PrefetchDoesIo()),
};
