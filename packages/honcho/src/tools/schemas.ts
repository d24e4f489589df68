/** The five Honcho tools, as the model sees them (hidden in recall mode "context"). */
import type { ToolSchema } from '@hermes-memory/core';
import { REASONING_LEVELS } from '../config/types';

export const PROFILE_TOOL = 'honcho_profile';
export const SEARCH_TOOL = 'honcho_search';
export const REASONING_TOOL = 'honcho_reasoning';
export const CONTEXT_TOOL = 'honcho_context';
export const CONCLUDE_TOOL = 'honcho_conclude';

const PEER = {
  type: 'string',
  description: 'Whose memory: "user" (default), "ai" (the assistant itself), or a peer id.',
};

export const HONCHO_TOOL_SCHEMAS: readonly ToolSchema[] = [
  {
    name: PROFILE_TOOL,
    description:
      "Read or update a peer card: the short list of curated facts Honcho keeps about the user (or the assistant). Pass 'card' to replace it. No LLM involved; fast.",
    parameters: {
      type: 'object',
      properties: {
        peer: PEER,
        card: { type: 'array', items: { type: 'string' }, description: 'New card facts; replaces the card.' },
      },
    },
  },
  {
    name: SEARCH_TOOL,
    description:
      'Search past conversations (semantic and keyword) for what was said about a topic. Returns raw excerpts with author and session.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What to look for.' },
        max_tokens: {
          type: 'integer',
          description: 'Result budget in tokens (default 800, max 2000).',
          minimum: 1,
          maximum: 2000,
        },
        peer: PEER,
      },
      required: ['query'],
    },
  },
  {
    name: REASONING_TOOL,
    description:
      "Ask Honcho a question about the user (or the assistant); Honcho reasons over everything it has observed and answers in prose. Slower than honcho_profile; use for synthesis ('what does the user care about in code review?').",
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'The question.' },
        reasoning_level: {
          type: 'string',
          enum: [...REASONING_LEVELS],
          description: 'How hard Honcho thinks.',
        },
        peer: PEER,
      },
      required: ['query'],
    },
  },
  {
    name: CONTEXT_TOOL,
    description: "This session's context from Honcho: summary, representation, card and recent messages.",
    parameters: { type: 'object', properties: { peer: PEER } },
  },
  {
    name: CONCLUDE_TOOL,
    description:
      'Save a durable conclusion about the user (a fact or preference worth keeping), list conclusions (optionally searched), or delete one by id (for removing personal data). Give exactly one of conclusion, delete_id or list.',
    parameters: {
      type: 'object',
      properties: {
        conclusion: { type: 'string', description: 'The conclusion to save, one self-contained sentence.' },
        delete_id: { type: 'string', description: 'Id of a conclusion to delete.' },
        list: { type: 'boolean', description: 'List conclusions.' },
        query: { type: 'string', description: 'With list=true: search conclusions for this.' },
        peer: PEER,
      },
    },
  },
];
