import type { ConfigField } from '@hermes-memory/core';

/**
 * The settings `setup` asks for and `doctor` checks (`memory.continuity.*`, snake_case). Nested
 * settings (`gates`, `weights`, `pinned_system_prompt`, `scopes`) are edited in config.yaml.
 */
export const CONTINUITY_CONFIG_SCHEMA: readonly ConfigField[] = Object.freeze([
  { key: 'db_path', description: 'SQLite database path', default: '$HERMES_HOME/continuity/continuity.db' },
  {
    key: 'max_records',
    description: 'Records per recall block',
    type: 'integer',
    minimum: 0,
    maximum: 50,
    default: 4,
  },
  {
    key: 'max_chars',
    description: 'Characters per recall block',
    type: 'integer',
    minimum: 0,
    maximum: 50_000,
    default: 1200,
  },
  {
    key: 'embeddings',
    description: 'Semantic candidates: auto (embedder if available), true, false',
    default: 'auto',
    choices: ['auto', 'true', 'false'],
  },
  {
    key: 'graph_depth',
    description: 'Association-graph expansion in hops (0 = off)',
    type: 'integer',
    minimum: 0,
    maximum: 5,
    default: 2,
  },
  {
    key: 'mirror_builtin',
    description: 'Mirror builtin memory writes into records',
    type: 'boolean',
    default: true,
  },
  {
    key: 'extract_markers',
    description: 'Store "Remember:", "Lesson learned:", "Decision:" lines at session end',
    type: 'boolean',
    default: true,
  },
  {
    key: 'memory_mode',
    description: "'hybrid' (recall + tools) or 'tools' (no per-turn recall)",
    default: 'hybrid',
    choices: ['hybrid', 'tools'],
  },
  {
    key: 'event_log_limit',
    description: 'Retrieval events kept for explain (0 = no log)',
    type: 'integer',
    minimum: 0,
    default: 1000,
  },
] satisfies ConfigField[]);
