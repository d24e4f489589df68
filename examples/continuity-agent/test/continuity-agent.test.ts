import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runContinuityExample } from '../src/main';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
});

describe('continuity example (scripted model)', () => {
  it('pins the preference, recalls only the decision, and nothing for an off-topic question', async () => {
    let out = '';
    const r = await runContinuityExample({ env: { PATH: process.env.PATH }, write: (t) => (out += t) });
    homes.push(r.home);
    // Tier 0: the preference stored with continuity_add in session 1 is pinned in session 2.
    expect(r.systemPrompt).toContain('Pinned records');
    expect(r.systemPrompt).toContain('Maya wants short answers with the code first.');
    // The API question recalls the decision, fenced, and nothing else.
    expect(r.recalls[0]).toMatch(/^<memory-context>/);
    expect(r.recalls[0]).toContain('versioned in the URL path');
    expect(r.recalls[0]!.split('\n').filter((l) => l.startsWith('- ['))).toHaveLength(1);
    expect(r.answers[0]).toContain('source: tool');
    // The off-topic question recalls nothing, and explain says why.
    expect(r.recalls[1]).toBe('');
    expect(r.answers[1]).toContain('Nothing in memory is about cats');
    expect(JSON.parse(r.explanation)).toMatchObject({ origin: 'prefetch', injected: 0 });
    // The "Lesson learned:" line of session 1 became a record at session end.
    expect(out).toContain('Lesson learned');
    expect(fs.statSync(`${r.home}/continuity/continuity.db`).mode & 0o777).toBe(0o600);
  });
});
