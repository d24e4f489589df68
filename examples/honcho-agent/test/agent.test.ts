import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runHonchoDemo } from '../src/main';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
});

describe('honcho-agent (offline, against the shipped fake)', () => {
  it('session 2 recalls session 1 through Honcho', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'honcho-agent-test-'));
    homes.push(home);
    let out = '';
    const result = await runHonchoDemo({ home, env: { PATH: process.env.PATH }, write: (s) => (out += s) });
    expect(result.mode).toBe('fake');
    expect(out).toContain('Offline mode');
    // the stand-in model answers with the recalled lines, never the fenced block itself
    expect(out).not.toMatch(/assistant: .*(memory-context|System note)/);
    expect(result.recall).toContain('<memory-context>');
    expect(result.recall).toMatch(/deploy it every Tuesday/);
    const search = JSON.parse(result.search) as { result: string };
    expect(search.result).toContain('billing service');
  }, 30_000);
});
