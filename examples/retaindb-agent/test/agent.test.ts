import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runRetaindbDemo } from '../src/main';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
});

describe('retaindb-agent (offline, against the shipped fake)', () => {
  it('session 2 recalls session 1 through RetainDB', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'retaindb-agent-test-'));
    homes.push(home);
    let out = '';
    const result = await runRetaindbDemo({ home, env: { PATH: process.env.PATH }, write: (s) => (out += s) });
    expect(result.mode).toBe('fake');
    expect(out).toContain('Offline mode');
    // the stand-in model answers with the recalled lines, never the fenced block itself
    expect(out).not.toMatch(/assistant: .*(memory-context|System note)/);
    expect(result.recall).toContain('<memory-context>');
    expect(result.recall).toContain('[RetainDB Context]');
    expect(result.recall).toMatch(/deploy it every Tuesday/);
    const search = JSON.parse(result.search) as { results: Array<{ content: string }> };
    expect(search.results.map((r) => r.content).join(' ')).toContain('billing service');
    // Every turn reached the service; none is left in the queue.
    expect(fs.existsSync(path.join(home, 'retaindb_queue.db'))).toBe(true);
  }, 30_000);
});
