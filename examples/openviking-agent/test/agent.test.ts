import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runOpenvikingDemo } from '../src/main';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
});

describe('openviking-agent (offline, against the shipped fake)', () => {
  it('session 2 recalls what the commit of session 1 extracted', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'openviking-agent-test-'));
    homes.push(home);
    let out = '';
    const result = await runOpenvikingDemo({
      home,
      env: { PATH: process.env.PATH },
      write: (s) => (out += s),
    });
    expect(result.mode).toBe('fake');
    expect(out).toContain('Offline mode');
    // the stand-in model answers with the recalled lines, never the fenced block itself
    expect(out).not.toMatch(/assistant: .*(memory-context|System note)/);
    expect(result.recall).toContain('<memory-context>');
    expect(result.recall).toContain('## OpenViking Context');
    expect(result.recall).toMatch(/deploy it every Tuesday/);
    expect(result.recall).toContain('<available-memories>');
    const search = JSON.parse(result.search) as { results: Array<{ abstract: string }> };
    expect(search.results[0]!.abstract).toMatch(/billing service/);
  }, 30_000);
});
