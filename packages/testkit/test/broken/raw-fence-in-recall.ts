import { scanWrite } from '@hermes-memory/core';
import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

/** Scans writes but stores and returns the text raw: a stored closer ends the recall fence early. */
class RawFenceInRecall extends GoodProvider {
  protected override storable(text: string): string | null {
    return scanWrite(text).ok ? text : null;
  }

  protected override search(query: string): string {
    const words = query.toLowerCase().split(/\W+/).filter(Boolean);
    return [...this.entries.values()]
      .filter((t) => words.some((w) => t.toLowerCase().includes(w)))
      .join('\n');
  }

  override async handleToolCall(name: string, args: unknown): Promise<string> {
    return this.callTool(name, args);
  }
}

export const rawFenceInRecall: BrokenCase = {
  check: 'safety.fence-escape',
  message: /returned fence markup "<\/memory-context>" from stored text/,
  harness: harnessFor(() => new RawFenceInRecall()),
};
