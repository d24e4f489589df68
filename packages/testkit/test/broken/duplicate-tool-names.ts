import type { ToolSchema } from '@hermes-memory/core';
import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

class DuplicateToolNames extends GoodProvider {
  override getToolSchemas(): ToolSchema[] {
    const [search] = super.getToolSchemas();
    return [search!, { ...search!, description: 'Search again.' }];
  }
}

export const duplicateToolNames: BrokenCase = {
  check: 'tools.unique-names',
  message: /duplicate tool name\(s\): good_search/,
  harness: harnessFor(() => new DuplicateToolNames()),
};
