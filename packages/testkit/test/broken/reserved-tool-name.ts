import type { ToolSchema } from '@hermes-memory/core';
import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

/** Calls its tool `memory`, the builtin store's tool: the manager would refuse it. */
class ReservedToolName extends GoodProvider {
  override getToolSchemas(): ToolSchema[] {
    const [search] = super.getToolSchemas();
    return [{ ...search!, name: 'memory' }];
  }
}

export const reservedToolName: BrokenCase = {
  check: 'tools.reserved-names',
  message: /reserved for the agent's core tools: memory/,
  harness: harnessFor(() => new ReservedToolName()),
};
