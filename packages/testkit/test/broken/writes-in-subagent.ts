import type { InitContext } from '@hermes-memory/core';
import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

/** Ignores agentContext: a subagent's turns land in the user's memory. */
class WritesInSubagent extends GoodProvider {
  override async initialize(sessionId: string, context: InitContext): Promise<void> {
    await super.initialize(sessionId, context);
    this.writable = true;
  }
}

export const writesInSubagent: BrokenCase = {
  check: 'context.non-primary-readonly',
  message:
    /in the 'subagent' context, syncTurn changed persistent state \((created|changed) good-memory\.jsonl\)/,
  harness: harnessFor(() => new WritesInSubagent()),
};
