import path from 'node:path';
import Database from 'better-sqlite3';
import { describeMemoryProvider } from '@hermes-memory/testkit';
import { createContinuityProvider } from './provider';

describeMemoryProvider(
  'continuity',
  {
    create: () => createContinuityProvider({ embeddings: false }),
    capabilities: { tools: true, persistence: true, prefetch: true, mirrors: true, backgroundSync: false },
    writesOn: {
      syncTurn: false,
      memoryWrite: true,
      sessionEnd: false,
      tools: {
        continuity_add: { kind: 'decision', title: 'Conformance', summary: 'A conformance decision record.' },
      },
    },
    async seed(provider, texts) {
      for (const summary of texts)
        await provider.handleToolCall('continuity_add', {
          kind: 'environment_fact',
          title: 'Seeded fact',
          summary,
        });
    },
    snapshot({ hermesHome }) {
      const file = path.join(hermesHome, 'continuity', 'continuity.db');
      let db: Database.Database;
      try {
        db = new Database(file, { readonly: true, fileMustExist: true });
      } catch {
        return [];
      }
      try {
        return [
          db.prepare('SELECT id, kind, title, summary, status FROM records ORDER BY seq').all(),
          db.prepare('SELECT src, dst, relation FROM edges ORDER BY src, dst').all(),
          db.prepare('SELECT count(*) AS n FROM retrieval_events').get(),
        ];
      } finally {
        db.close();
      }
    },
  },
  {
    skip: {
      'persistence.shutdown-flushes':
        'syncTurn is deliberately a no-op: records enter through continuity_add, the builtin mirror, session-end markers and reviewed imports, never raw turns (decision 0900)',
    },
  },
);
