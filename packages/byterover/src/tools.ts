import type { ToolSchema } from '@hermes-memory/core';
import type { BrvAnswer, BrvSearchHit } from './brv/output';

export const TOOL_NAMES = {
  query: 'brv_query',
  curate: 'brv_curate',
  status: 'brv_status',
  search: 'brv_search',
} as const;

/** The reference's three tools (same names and arguments), and `brv_search` (BM25, no LLM). */
export const TOOL_SCHEMAS: readonly ToolSchema[] = [
  {
    name: TOOL_NAMES.query,
    description:
      "Search ByteRover's persistent knowledge tree for relevant context. Returns memories, project knowledge, architectural decisions, and patterns from previous sessions. Use for any question where past context would help.",
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: 'What to search for.' } },
      required: ['query'],
    },
  },
  {
    name: TOOL_NAMES.curate,
    description:
      "Store important information in ByteRover's persistent knowledge tree. Use for architectural decisions, bug fixes, user preferences, project patterns — anything worth remembering across sessions. ByteRover's LLM automatically categorizes and organizes the memory.",
    parameters: {
      type: 'object',
      properties: { content: { type: 'string', description: 'The information to remember.' } },
      required: ['content'],
    },
  },
  {
    name: TOOL_NAMES.status,
    description: 'Check ByteRover status — CLI version, context tree stats, cloud sync state.',
    parameters: { type: 'object', properties: {}, required: [] },
  },
  {
    name: TOOL_NAMES.search,
    description:
      "Keyword search (BM25) over ByteRover's knowledge tree, without an LLM: the matching documents with their paths, titles and excerpts. Faster than brv_query; use it to find where something is written.",
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Words to look for.' },
        limit: {
          type: 'integer',
          description: 'Maximum number of documents (1-50).',
          minimum: 1,
          maximum: 50,
        },
      },
      required: ['query'],
    },
  },
];

/** Answers shorter than this are "nothing" (the reference's noise filter). */
export const MIN_OUTPUT_CHARS = 20;
/** The longest answer `brv_query` returns, and the marker that says it was cut. */
export const MAX_QUERY_RESULT_CHARS = 8000;
export const TRUNCATION_MARKER = '\n\n[... truncated]';

/** `brv_query`'s payload: the answer (cut at 8000 characters) and the documents it came from. */
export function queryPayload(answer: BrvAnswer): Record<string, unknown> {
  const text = answer.text.trim();
  if (text.length < MIN_OUTPUT_CHARS) return { result: 'No relevant memories found.' };
  const result =
    text.length > MAX_QUERY_RESULT_CHARS
      ? `${text.slice(0, MAX_QUERY_RESULT_CHARS)}${TRUNCATION_MARKER}`
      : text;
  return answer.matchedDocs && answer.matchedDocs.length > 0
    ? { result, sources: answer.matchedDocs.map((d) => d.path) }
    : { result };
}

export function searchPayload(hits: readonly BrvSearchHit[], totalFound: number): Record<string, unknown> {
  return {
    success: true,
    count: hits.length,
    total_found: totalFound,
    results: hits.map((h) => ({ path: h.path, title: h.title, score: h.score, excerpt: h.excerpt })),
  };
}
