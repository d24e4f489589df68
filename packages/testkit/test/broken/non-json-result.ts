import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

/** Answers in prose instead of JSON. */
class NonJsonResult extends GoodProvider {
  override async handleToolCall(name: string): Promise<string> {
    return `Sorry, I do not know the tool ${name}.`;
  }
}

export const nonJsonResult: BrokenCase = {
  check: 'tools.unknown-tool',
  message: /returned a string that is not JSON: "Sorry, I do not know the tool/,
  harness: harnessFor(() => new NonJsonResult()),
};
