import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

/** Returns undefined from systemPromptBlock (the manager joins strings). */
class WrongHookResult extends GoodProvider {
  override systemPromptBlock(): string {
    return undefined as unknown as string;
  }
}

export const wrongHookResult: BrokenCase = {
  check: 'lifecycle.hook-results',
  message: /systemPromptBlock\(\) must return a string, got undefined/,
  harness: harnessFor(() => new WrongHookResult()),
};
