import { parseToolArgs, toolError } from '@hermes-memory/core';
import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

/** Validates the argument object but not the types inside it: a numeric query crashes. */
class WrongTypesCrash extends GoodProvider {
  override async handleToolCall(name: string, args: unknown): Promise<string> {
    let parsed: Record<string, unknown>;
    try {
      parsed = { ...parseToolArgs(args) };
    } catch {
      return toolError('bad arguments');
    }
    if (name === 'good_search') {
      if (parsed.query === undefined || parsed.query === null) return toolError('query is required');
      return JSON.stringify({ result: this.search((parsed.query as string).toLowerCase()) });
    }
    return super.handleToolCall(name, args);
  }
}

export const wrongTypesCrash: BrokenCase = {
  check: 'tools.wrong-types',
  message:
    /tool 'good_search' with wrongly typed arguments: .*threw instead of returning a JSON error: TypeError/,
  harness: harnessFor(() => new WrongTypesCrash()),
};
