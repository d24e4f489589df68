import type { ToolSchema } from '@hermes-memory/core';
import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

class BadToolName extends GoodProvider {
  override getToolSchemas(): ToolSchema[] {
    const [search] = super.getToolSchemas();
    return [{ ...search!, name: 'good search!' }];
  }
}

export const badToolName: BrokenCase = {
  check: 'tools.name-format',
  message: /not matching .*: "good search!"/,
  harness: harnessFor(() => new BadToolName()),
};
