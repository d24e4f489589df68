/**
 * Category banks (`memory_banks`): small stores rebuild them on every write, from per-fact cos/sin
 * terms kept in memory. The bank must always equal a cold rebuild from the rows, bit for bit.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FactStore } from './store';
import { tempDir, tempStore } from './test-helpers';

function bankRow(store: FactStore, category: string) {
  return store.db
    .prepare('SELECT hex(vector) AS v, fact_count FROM memory_banks WHERE bank_name = ?')
    .get(`cat:${category}`) as { v: string; fact_count: number } | undefined;
}

describe('category banks', () => {
  it('equal a cold rebuild after adds, an update and a removal', () => {
    const dbPath = path.join(tempDir(), 'memory_store.db');
    const warm = tempStore({ dbPath, hrrDim: 256 });
    const ids = Array.from({ length: 40 }, (_, i) =>
      warm.add(`Project Atlas note ${i}: the deploy runs on ${i % 2 ? 'Fridays' : 'Mondays'}`, {
        category: 'project',
      }),
    );
    warm.add('Prefers tea', { category: 'user_pref' });
    warm.update(ids[5]!, { content: 'Project Atlas note 5: the deploy moved to Tuesdays' });
    warm.remove(ids[7]!);
    warm.add('Project Atlas note 41: rollback playbook lives in the wiki', { category: 'project' });

    const warmBank = Array.from(warm.categoryBank('project')!);
    const cold = tempStore({ dbPath, hrrDim: 256 });
    expect(Array.from(cold.categoryBank('project')!)).toEqual(warmBank);
    // What was written on the last write is that bank, with the live count.
    const row = bankRow(warm, 'project');
    expect(row?.fact_count).toBe(40);
    cold.db.prepare('DELETE FROM memory_banks').run();
    cold.add('One more note about Project Atlas', { category: 'project' });
    expect(bankRow(cold, 'project')?.v).toBeDefined();
    // A fact moved out of the category leaves its bank.
    warm.update(ids[0]!, { category: 'general' });
    const fresh = tempStore({ dbPath, hrrDim: 256 });
    expect(Array.from(warm.categoryBank('project')!)).toEqual(Array.from(fresh.categoryBank('project')!));
    expect(bankRow(warm, 'project')?.fact_count).toBe(40);
  });
});
