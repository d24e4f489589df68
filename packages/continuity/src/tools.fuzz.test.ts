import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ContinuityProvider } from './provider';
import { TOOL_NAMES } from './tools';
import { call, tempProvider } from './test-helpers';

/** Everything a write could touch, for "a rejected call changes nothing". */
function snapshot(p: ContinuityProvider): string {
  const db = p.recordStore!.db;
  return JSON.stringify([
    db.prepare('SELECT * FROM records ORDER BY seq').all(),
    db.prepare('SELECT * FROM record_sources ORDER BY record_id, ordinal').all(),
    db.prepare('SELECT src, dst, relation, weight FROM edges ORDER BY src, dst, relation').all(),
    db.prepare('SELECT key, value FROM provider_state ORDER BY key').all(),
  ]);
}

describe('fuzzed tool arguments', () => {
  it('every tool always returns JSON, never throws, and a rejected call leaves the store unchanged', async () => {
    const p = tempProvider();
    const seeded = (
      await call(p, 'continuity_add', {
        kind: 'decision',
        title: 'Seed',
        summary: 'A seed decision about the billing service and Jane Doe.',
      })
    ).record_id as string;
    const anyValue = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(seeded),
      fc.array(fc.oneof(fc.string(), fc.constant(seeded)), { maxLength: 3 }),
      fc.object({ maxDepth: 1 }),
    );
    const args = fc.oneof(
      fc.record(
        {
          query: anyValue,
          limit: anyValue,
          kind: fc.oneof(fc.constantFrom('decision', 'user_preference', 'corpus_note'), anyValue),
          include_inactive: anyValue,
          title: anyValue,
          summary: anyValue,
          details: anyValue,
          tags: anyValue,
          entities: anyValue,
          scopes: anyValue,
          confidence: anyValue,
          importance: anyValue,
          trust_level: anyValue,
          expires_at: anyValue,
          supersedes: anyValue,
          related_ids: anyValue,
          record_id: anyValue,
          reason: anyValue,
          window: anyValue,
          event_id: anyValue,
          confirm: anyValue,
          purge_sources: anyValue,
          apply: anyValue,
          older_than_days: anyValue,
          proposal_ids: anyValue,
        },
        { requiredKeys: [] },
      ),
      fc.string(),
      anyValue,
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...TOOL_NAMES, 'continuity_nope'), args, async (tool, a) => {
        const before = snapshot(p);
        const out = await p.handleToolCall(tool, a);
        expect(typeof out).toBe('string');
        const parsed = JSON.parse(out) as Record<string, unknown>;
        if (parsed.success === false) {
          expect(typeof parsed.error).toBe('string');
          expect(snapshot(p)).toBe(before);
        }
      }),
      { numRuns: 400, seed: 17 },
    );
  }, 120_000);
});
