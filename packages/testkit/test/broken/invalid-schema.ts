import type { ToolSchema } from '@hermes-memory/core';
import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

/** A hand-written schema with three classic mistakes. */
class InvalidSchema extends GoodProvider {
  override getToolSchemas(): ToolSchema[] {
    return [
      {
        name: 'good_search',
        description: '',
        parameters: { type: 'object', properties: { query: { type: 'text' } }, required: ['query', 'limit'] },
      },
    ];
  }
}

export const invalidSchema: BrokenCase = {
  check: 'tools.schema-valid',
  message:
    /"description" must be a non-empty string[\s\S]*unknown JSON type "text"[\s\S]*"limit" is not in properties/,
  harness: harnessFor(() => new InvalidSchema()),
};
