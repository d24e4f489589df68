import type { ConfigField } from '@hermes-memory/core';
import { DEFAULT_MIN_RELEVANCE } from './relevance';

/** Where the Python plugin (`hermes-memory-store`) reads and writes its settings in config.yaml. */
export const REFERENCE_CONFIG_PATH = 'plugins.hermes-memory-store';

/** Where holographic's settings live, most authoritative first: the provider and its CLI read both. */
export const HOLOGRAPHIC_CONFIG_PATHS: readonly string[] = [REFERENCE_CONFIG_PATH, 'memory.holographic'];

/** The settings `setup` asks for, `doctor` checks and `initialize` validates (snake_case keys). */
export const HOLOGRAPHIC_CONFIG_SCHEMA: readonly ConfigField[] = Object.freeze([
  { key: 'db_path', description: 'SQLite database path', default: '$HERMES_HOME/memory_store.db' },
  { key: 'auto_extract', description: 'Auto-extract facts at session end', type: 'boolean', default: false },
  {
    key: 'default_trust',
    description: 'Default trust score for new facts',
    type: 'number',
    minimum: 0,
    maximum: 1,
    default: 0.5,
  },
  {
    key: 'hrr_dim',
    description: 'HRR vector dimensions',
    type: 'integer',
    minimum: 1,
    maximum: 65536,
    default: 1024,
  },
  {
    key: 'min_trust_threshold',
    description: 'Trust floor for prefetch and the default search filter',
    type: 'number',
    minimum: 0,
    maximum: 1,
    default: 0.3,
  },
  {
    key: 'prefetch_min_relevance',
    description: 'Relevance (0-1) a fact needs to be recalled into the prompt; nothing below it',
    type: 'number',
    minimum: 0,
    maximum: 1,
    default: DEFAULT_MIN_RELEVANCE,
  },
  {
    key: 'prefetch_limit',
    description: 'Most facts recalled into the prompt per turn',
    type: 'integer',
    minimum: 1,
    maximum: 50,
    default: 5,
  },
  {
    key: 'semantic_threshold',
    description: 'Cosine above which embeddings count (default: calibrated per model)',
    type: 'number',
    minimum: -1,
    maximum: 1,
  },
  {
    key: 'temporal_decay_half_life',
    description: 'Score half-life in days (0 = no decay)',
    type: 'number',
    minimum: 0,
    default: 0,
  },
  {
    key: 'hrr_weight',
    description: 'HRR share of the reference ranking',
    type: 'number',
    minimum: 0,
    default: 0.3,
  },
  {
    key: 'embeddings',
    description: 'Semantic signal: auto (embedder if available), true, false',
    default: 'auto',
    choices: ['auto', 'true', 'false'],
  },
  {
    key: 'compat',
    description: "Ranking: 'default' (improved) or 'reference' (the Python plugin's)",
    default: 'default',
    choices: ['default', 'reference'],
  },
  {
    key: 'vector_format',
    description:
      "HRR blob format of new vectors: 'auto' keeps the store's own (an older plugin's float64 stays float64)",
    default: 'auto',
    choices: ['auto', 'float32', 'float64'],
  },
  {
    key: 'memory_mode',
    description: "'hybrid' (prefetch + tools) or 'tools' (no prefetch)",
    default: 'hybrid',
    choices: ['hybrid', 'tools'],
  },
  {
    key: 'db_path_template',
    description: 'Per-chat database path with {profile} {platform} {chat} {user} (overrides db_path)',
  },
] satisfies ConfigField[]);
