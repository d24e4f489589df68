import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runByteroverDemo } from '../src/main';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
});

describe('byterover-agent (offline, against the shipped fake brv)', () => {
  it('session 2 recalls session 1 through the context tree', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'byterover-agent-test-'));
    homes.push(home);
    let out = '';
    const result = await runByteroverDemo({
      home,
      env: { PATH: process.env.PATH, HOME: home },
      write: (s) => {
        out += s;
      },
    });
    expect(result.mode).toBe('fake');
    expect(out).toContain('Offline mode');
    expect(result.recall).toContain('<memory-context>');
    expect(result.recall).toContain('## ByteRover Context');
    expect(result.recall).toMatch(/deploy it every Tuesday/);
    const search = JSON.parse(result.search) as { results: Array<{ excerpt: string }> };
    expect(search.results.map((r) => r.excerpt).join(' ')).toContain('billing service');
    // Session 1's turns are documents of the context tree under the profile home.
    const tree = path.join(home, 'byterover', '.brv', 'context-tree');
    const docs = fs
      .readdirSync(tree, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.md'));
    expect(docs.length).toBeGreaterThan(0);
    // The stand-in model answers from what was recalled, not with the fenced block itself: what is
    // curated back into the tree holds no fence, system note or recall header.
    for (const doc of docs) {
      const text = fs.readFileSync(path.join(tree, doc), 'utf8');
      expect(text, doc).not.toMatch(/memory-context|System note|ByteRover Context/);
    }
    expect(out).not.toMatch(/assistant: .*memory-context/);
  }, 60_000);
});
