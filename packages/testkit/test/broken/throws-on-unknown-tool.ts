import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

/** Inherits the base class default for tools it does not know: it throws. */
class ThrowsOnUnknownTool extends GoodProvider {
  override handleToolCall(name: string, args: unknown): Promise<string> {
    if (name.startsWith('good_')) return super.handleToolCall(name, args);
    throw new Error(`no such tool ${name}`);
  }
}

export const throwsOnUnknownTool: BrokenCase = {
  check: 'tools.unknown-tool',
  message:
    /handleToolCall\('conformance_no_such_tool', \{\}\) threw instead of returning a JSON error: Error: no such tool/,
  harness: harnessFor(() => new ThrowsOnUnknownTool()),
};
