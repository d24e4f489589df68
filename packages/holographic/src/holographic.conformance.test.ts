import path from 'node:path';
import Database from 'better-sqlite3';
import { describeMemoryProvider } from '@hermes-memory/testkit/vitest';
import { createHolographicProvider } from './provider';

describeMemoryProvider(
  'holographic',
  {
    create: () => createHolographicProvider(),
    capabilities: { tools: true, persistence: true, prefetch: 'queued', sync: false, mirrors: 'all' },
    writesOn: {
      syncTurn: false,
      memoryWrite: true,
      sessionEnd: false,
      tools: { fact_store: { action: 'add', content: 'conformance fact' } },
    },
    async seed(provider, texts) {
      for (const content of texts) await provider.handleToolCall('fact_store', { action: 'add', content });
    },
    snapshot({ hermesHome }) {
      const db = new Database(path.join(hermesHome, 'memory_store.db'), {
        readonly: true,
        fileMustExist: false,
      });
      try {
        return db
          .prepare(
            'SELECT fact_id, content, category, tags, trust_score, retrieval_count, helpful_count FROM facts ORDER BY fact_id',
          )
          .all();
      } catch {
        return [];
      } finally {
        db.close();
      }
    },
  },
  {
    skip: {
      'persistence.shutdown-flushes':
        'syncTurn is a deliberate no-op in the reference: facts enter through fact_store, the onMemoryWrite mirror and auto-extraction',
    },
  },
);
