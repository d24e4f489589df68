/**
 * What prefetch puts in front of the model (issues #17, #19): in a live session, thirty unrelated
 * facts written seconds apart through the builtin memory tool (mirrored into records), then
 * ordinary and off-topic questions — lexical and with the bundled Model2Vec embeddings. Test data:
 * `test/fixtures/live-session.json` (the same session holographic's precision tests use).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Embedder } from '@hermes-memory/core';
import { createDefaultEmbedder } from '@hermes-memory/embeddings';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ContinuityProvider } from './provider';
import { tempProvider } from './test-helpers';

interface LiveSession {
  facts: string[];
  questions: Array<{ q: string; answer: string }>;
  offTopic: string[];
}
const session = JSON.parse(
  fs.readFileSync(path.join(__dirname, '..', 'test', 'fixtures', 'live-session.json'), 'utf8'),
) as LiveSession;

let model2vec: Embedder;
beforeAll(() => {
  model2vec = createDefaultEmbedder();
});

/** A provider whose store holds the session's thirty facts, mirrored from builtin memory writes. */
async function sessionProvider(embedder: Embedder | undefined): Promise<ContinuityProvider> {
  const p = tempProvider(
    { embeddings: embedder !== undefined },
    { sessionId: 'live', context: embedder ? { embedder } : {} },
  );
  for (const content of session.facts) p.onMemoryWrite('add', 'memory', content, { sessionId: 'live' });
  expect(p.recordStore!.countsByStatus().active).toBe(session.facts.length);
  return p;
}

/** The summaries of the records a prefetch block injects (`- [kind · date · id] title — summary`). */
function injected(p: ContinuityProvider, block: string): string[] {
  const ids = block.split('\n').flatMap((line) => /^- \[[^\]]*· (ctx_[0-9a-f]+)\]/.exec(line)?.[1] ?? []);
  return ids.map((id) => p.recordStore!.get(id)!.summary);
}

for (const variant of ['lexical', 'Model2Vec'] as const) {
  describe(`prefetch precision in a live session (${variant})`, () => {
    const embedder = () => (variant === 'lexical' ? undefined : model2vec);

    it('an off-topic question against a populated store injects nothing', async () => {
      const p = await sessionProvider(embedder());
      for (const q of session.offTopic) expect(await p.prefetch(q), q).toBe('');
    });

    it('a question with one relevant fact among thirty injects that fact and at most one other', async () => {
      const p = await sessionProvider(embedder());
      for (const { q, answer } of session.questions) {
        const facts = injected(p, await p.prefetch(q));
        expect(facts, q).toContain(answer);
        expect(facts.length, q).toBeLessThanOrEqual(2);
      }
    });
  });
}
