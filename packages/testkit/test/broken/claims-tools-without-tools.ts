import type { ToolSchema } from '@hermes-memory/core';
import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

/** Context-only provider whose harness still claims the default `tools` capability. */
class NoTools extends GoodProvider {
  override getToolSchemas(): ToolSchema[] {
    return [];
  }
}

export const claimsToolsWithoutTools: BrokenCase = {
  check: 'tools.declared',
  message: /claims the `tools` capability but getToolSchemas\(\) is empty/,
  harness: harnessFor(() => new NoTools()),
};
