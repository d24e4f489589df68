import fc from 'fast-check';
import { silentLogger } from '@hermes-memory/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HolographicProvider, createHolographicProvider } from './provider';
import { tempDir } from './test-helpers';

// One store for the whole property run (tempDir cleanup runs after each test, so create in the test).
describe('fuzzed tool arguments', () => {
  let p: HolographicProvider;
  beforeAll(() => undefined);
  afterAll(() => p?.shutdown());

  const anyValue = fc.oneof(
    fc.string(),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.string(), { maxLength: 3 }),
    fc.object({ maxDepth: 1 }),
  );
  const args = fc.oneof(
    fc.record(
      {
        action: fc.oneof(
          fc.constantFrom(
            'add',
            'search',
            'probe',
            'related',
            'reason',
            'contradict',
            'update',
            'remove',
            'list',
            'helpful',
            'unhelpful',
          ),
          anyValue,
        ),
        content: anyValue,
        query: anyValue,
        entity: anyValue,
        entities: anyValue,
        fact_id: anyValue,
        category: anyValue,
        tags: anyValue,
        trust_delta: anyValue,
        min_trust: anyValue,
        limit: anyValue,
      },
      { requiredKeys: [] },
    ),
    fc.string(),
    anyValue,
  );

  function snapshot(provider: HolographicProvider): string {
    const db = provider.factStore!.db;
    return JSON.stringify([
      db
        .prepare(
          'SELECT fact_id, content, category, tags, trust_score, helpful_count FROM facts ORDER BY fact_id',
        )
        .all(),
      db.prepare('SELECT * FROM fact_entities ORDER BY fact_id, entity_id').all(),
    ]);
  }

  it('always returns JSON, never throws, and leaves the store unchanged on error', async () => {
    p = createHolographicProvider();
    p.initialize('fuzz', {
      hermesHome: tempDir(),
      platform: 'cli',
      agentContext: 'primary',
      logger: silentLogger,
    });
    await p.handleToolCall('fact_store', {
      action: 'add',
      content: 'Seed fact about Jane Doe and the billing service',
    });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('fact_store', 'fact_feedback'), args, async (tool, a) => {
        const before = snapshot(p);
        const out = await p.handleToolCall(tool, a);
        expect(typeof out).toBe('string');
        const parsed = JSON.parse(out) as Record<string, unknown>;
        if (parsed.success === false) {
          expect(typeof parsed.error).toBe('string');
          expect(snapshot(p)).toBe(before);
        }
      }),
      { numRuns: 300, seed: 42 },
    );
  });
});
