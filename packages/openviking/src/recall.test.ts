import type { ManualClock } from '@hermes-memory/core';
import { afterEach, describe, expect, it } from 'vitest';
import { fitProfile, rankHits, units } from './recall';
import { type Rig, rig } from './test-support/rig';
import { writeFile } from './testing/viking-tree';

const rigs: Rig[] = [];
afterEach(async () => {
  for (const r of rigs.splice(0)) await r.close();
});
async function open(options: Parameters<typeof rig>[0] = {}): Promise<Rig> {
  const r = await rig(options);
  rigs.push(r);
  return r;
}
const base = 'viking://user/default/memories';

function seed(r: Rig): void {
  const s = r.backend.state;
  writeFile(s, `${base}/profile.md`, '# Profile\nName: Ana\nLives in Porto.');
  writeFile(s, `${base}/preferences/mem_000000000001.md`, 'Prefers green tea in the morning.');
  writeFile(s, `${base}/entities/mem_000000000002.md`, 'Her cat is called Miso.');
  writeFile(s, `${base}/events/mem_000000000003.md`, 'Ana moved to Porto in 2024 for a new job.');
}

describe('prefetch', () => {
  it('§4.9.8 turn 1 waits for the session-start block (profile, listing) and query recall; later turns never wait', async () => {
    const r = await open();
    seed(r);
    r.provider.onTurnStart(1, 'where does Ana live now?');
    const first = await r.provider.prefetch('where does Ana live now?');
    expect(first.startsWith('## OpenViking Context\n')).toBe(true);
    expect(first).toContain(
      `<user-profile uri="${base}/profile.md">\n# Profile\nName: Ana\nLives in Porto.\n</user-profile>`,
    );
    expect(first).toContain(
      '<available-memories>\n  preferences/\n    - mem_000000000001.md — Prefers green tea in the morning.\n  entities/\n    - mem_000000000002.md — Her cat is called Miso.\n</available-memories>',
    );
    expect(first).toContain(
      `- [events]\n  <uri>${base}/events/mem_000000000003.md</uri>\n  Ana moved to Porto in 2024 for a new job.`,
    );
    expect(r.provider.recallStatus()).toEqual({ providerLabel: 'OpenViking', count: expect.any(Number) });
    // Turn 2: served from what is ready, without waiting; the profile block is not repeated.
    r.provider.queuePrefetch('what is the cat called?');
    await r.provider.idle();
    const requests = r.backend.requests.length;
    const second = await r.provider.prefetch('what is the cat called?');
    expect(r.backend.requests.length).toBe(requests);
    expect(second).toContain('Miso');
    expect(second).not.toContain('<user-profile');
    // A new session gets the block again.
    r.provider.onSessionSwitch('s2', { reset: true });
    r.provider.onTurnStart(1, 'hello there again');
    expect(await r.provider.prefetch('hello there again')).toContain('<user-profile');
  });

  it('§4.9.8 later turns never wait: nothing ready means the newest result or nothing, and this query starts for next time', async () => {
    const r = await open();
    seed(r);
    expect(await r.provider.prefetch('first question about Porto')).toContain('Porto');
    r.backend.fail({ type: 'timeout', route: 'POST /api/v1/search/search', count: 5 });
    const started = Date.now();
    expect(await r.provider.prefetch('a second question nobody prepared')).toBe('');
    expect(Date.now() - started).toBeLessThan(500);
    expect(r.provider.pendingWork).toBeGreaterThan(0);
  });

  it('§4.9.8 the whole recall is bounded by 4 s (a hanging search leaves the profile block); turn 1 waits at most 2.75 s', async () => {
    const r = await open();
    seed(r);
    const clock = r.clock as ManualClock;
    r.backend.fail({ type: 'timeout', route: 'POST /api/v1/search/search', count: 5 });
    r.backend.fail({ type: 'timeout', route: 'POST /api/v1/search/find', count: 5 });
    let text: string | undefined;
    const pending = r.provider.prefetch('where does Ana live now?').then((t) => (text = t));
    while (r.backend.hanging === 0) await new Promise((resolve) => setImmediate(resolve));
    await clock.advance(2750);
    await pending;
    expect(text).toBe('');
    // The recall itself ends at its 4 s budget with what it had; the next turn serves it at once.
    await clock.advance(1250);
    await r.provider.idle(0);
    const next = await r.provider.prefetch('a later question');
    expect(next).toContain('<user-profile');
    expect(next).not.toContain('- [events]');
  });

  it('§4.9.8 the session-start block keeps within the token budget: long profiles keep head and tail, listings degrade', async () => {
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i} ${'x'.repeat(50)}`);
    const fitted = fitProfile(lines.join('\n'), 1000);
    expect(fitted).toContain('line 7');
    expect(fitted).not.toContain('line 8 ');
    expect(fitted).toContain('… [profile middle elided] …');
    expect(fitted).toContain('line 39');
    expect(units(fitted)).toBeLessThanOrEqual(1000);
    expect(fitProfile('a\nb\n' + 'y'.repeat(3000), 500)).toMatch(/… \[profile truncated\]$/);
    expect(units('漢字')).toBe(12);
    const r = await open({ provider: { recall: { profileTokenBudget: 500 } } });
    for (let i = 0; i < 200; i++)
      writeFile(
        r.backend.state,
        `${base}/preferences/mem_${String(i).padStart(12, '0')}.md`,
        `Preference number ${i} ${'z'.repeat(60)}`,
      );
    const text = await r.provider.prefetch('hi');
    expect(text).toMatch(/… \+\d+ more, use `viking_search`/);
    expect(units(text)).toBeLessThan(2600);
  });
});

describe('recall ranking', () => {
  it('§4.9.9 threshold, URI and category+abstract dedupe (not events/cases), +0.12 for leaves, ≤0.2 for query tokens, top N', () => {
    const hits = [
      { uri: 'viking://m/a.md', score: 0.5, abstract: 'green tea', category: 'preferences', level: 2 },
      { uri: 'viking://m/a.md', score: 0.9, abstract: 'dup uri', category: 'preferences', level: 2 },
      { uri: 'viking://m/b.md', score: 0.6, abstract: 'Green tea', category: 'preferences', level: 2 },
      { uri: 'viking://m/events/c.md', score: 0.3, abstract: 'green tea', category: 'events', level: 2 },
      { uri: 'viking://m/events/d.md', score: 0.3, abstract: 'green tea', category: 'events', level: 2 },
      { uri: 'viking://m/low.md', score: 0.1, abstract: 'below threshold', level: 2 },
      { uri: 'viking://m/dir', score: 0.62, abstract: 'a folder summary', level: 1 },
      {
        uri: 'viking://m/many.md',
        score: 0.3,
        abstract: 'one two three four five six seven eight nine',
        level: 0,
      },
    ];
    const ranked = rankHits(hits, 'green tea one two three four five six', {
      scoreThreshold: 0.15,
      limit: 10,
    });
    const byUri = Object.fromEntries(ranked.map((r) => [r.hit.uri, Math.round(r.rank * 1000) / 1000]));
    expect(byUri).toEqual({
      'viking://m/a.md': 0.72, // 0.5 + 0.12 + 2 tokens × 0.05
      'viking://m/events/c.md': 0.52,
      'viking://m/events/d.md': 0.52,
      'viking://m/dir': 0.62,
      'viking://m/many.md': 0.5, // token boost capped at 0.2
    });
    expect(ranked[0]!.hit.uri).toBe('viking://m/a.md');
    expect(rankHits(hits, 'tea', { scoreThreshold: 0.15, limit: 2 })).toHaveLength(2);
  });

  it('§4.9.9 at most two full reads and at most 4000 injected characters', async () => {
    const r = await open();
    for (let i = 0; i < 6; i++)
      writeFile(
        r.backend.state,
        `${base}/events/mem_${String(i).padStart(12, '0')}.md`,
        `Porto trip ${i}\n${'detail '.repeat(300)}`,
      );
    const text = await r.provider.prefetch('Porto trip');
    const reads = r.backend
      .requestsTo('GET /api/v1/content/read')
      .filter((q) => String(q.query.uri).includes('/events/'));
    expect(reads).toHaveLength(2);
    const recallPart = text.slice(text.indexOf('- [events]'));
    expect(recallPart.length).toBeLessThanOrEqual(4000);
  });
});
