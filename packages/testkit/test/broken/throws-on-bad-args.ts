import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

/** Trusts its arguments: JSON.parse on whatever arrives, no guard, so bad input throws. */
class ThrowsOnBadArgs extends GoodProvider {
  override async handleToolCall(name: string, args: unknown): Promise<string> {
    const parsed = (typeof args === 'string' ? JSON.parse(args) : args) as { query: string };
    if (name === 'good_search') return JSON.stringify({ result: this.search(parsed.query.toLowerCase()) });
    return super.handleToolCall(name, args);
  }
}

export const throwsOnBadArgs: BrokenCase = {
  check: 'tools.malformed-args',
  message:
    /tool 'good_search' with malformed arguments: handleToolCall\('good_search', .*\) threw instead of returning a JSON error[\s\S]*counterexample/,
  harness: harnessFor(() => new ThrowsOnBadArgs()),
};
