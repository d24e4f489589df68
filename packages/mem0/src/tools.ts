import type { ToolSchema } from '@hermes-memory/core';

export const SEARCH_TOOL = 'mem0_search';
export const ADD_TOOL = 'mem0_add';
export const UPDATE_TOOL = 'mem0_update';
export const DELETE_TOOL = 'mem0_delete';
export const TOOL_NAMES: readonly string[] = [SEARCH_TOOL, ADD_TOOL, UPDATE_TOOL, DELETE_TOOL];

export const SEARCH_DEFAULT_TOP_K = 10;
export const SEARCH_MAX_TOP_K = 50;

/** The reference's four tools (OpenAI function format). */
export const TOOL_SCHEMAS: readonly ToolSchema[] = [
  {
    name: SEARCH_TOOL,
    description:
      'Search long-term memory (Mem0) for facts about the user and past conversations. Call it before answering anything that may depend on earlier context; for multi-hop questions run several searches.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What to look for, in natural language.' },
        top_k: {
          type: 'integer',
          description: `How many memories to return (1-${SEARCH_MAX_TOP_K}, default ${SEARCH_DEFAULT_TOP_K}).`,
          minimum: 1,
          maximum: SEARCH_MAX_TOP_K,
        },
        rerank: { type: 'boolean', description: 'Rerank results for relevance (Mem0 Platform).' },
      },
      required: ['query'],
    },
  },
  {
    name: ADD_TOOL,
    description: 'Store one durable fact in long-term memory, verbatim (no extraction).',
    parameters: {
      type: 'object',
      properties: { content: { type: 'string', description: 'The fact, as one self-contained sentence.' } },
      required: ['content'],
    },
  },
  {
    name: UPDATE_TOOL,
    description: 'Replace the text of a memory found with mem0_search.',
    parameters: {
      type: 'object',
      properties: {
        memory_id: { type: 'string', description: 'The id from mem0_search.' },
        text: { type: 'string', description: 'The corrected fact.' },
      },
      required: ['memory_id', 'text'],
    },
  },
  {
    name: DELETE_TOOL,
    description: 'Delete a memory found with mem0_search that is wrong or no longer true.',
    parameters: {
      type: 'object',
      properties: { memory_id: { type: 'string', description: 'The id from mem0_search.' } },
      required: ['memory_id'],
    },
  },
];
