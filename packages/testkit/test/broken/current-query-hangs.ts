import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

/** Claims prefetch: current-query, but its lookup ignores the signal and never comes back. */
class CurrentQueryHangs extends GoodProvider {
  override prefetch(): Promise<string> {
    return new Promise(() => {});
  }
}

export const currentQueryHangs: BrokenCase = {
  check: 'prefetch.current-query',
  message: /prefetch\(\) did not come back within 2000 ms \(its signal aborted at 1000 ms\)/,
  harness: harnessFor(() => new CurrentQueryHangs(), { capabilities: { prefetch: 'current-query' } }),
};
