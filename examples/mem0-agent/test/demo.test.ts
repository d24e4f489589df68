import { describe, expect, it } from 'vitest';
import { runDemo } from '../src/main';

process.env.MEM0_TELEMETRY = 'false';

describe('mem0-agent (offline, shipped fake)', () => {
  it('session 2 recalls session 1 on its first turn, and mem0_search finds it', async () => {
    const lines: string[] = [];
    const result = await runDemo({ env: { PATH: process.env.PATH }, write: (line) => lines.push(line) });
    expect(result.mode).toBe('fake');
    expect(result.recall).toContain('<memory-context>');
    expect(result.recall).toContain('## Mem0 Memory');
    expect(result.recall).toContain('I deploy the billing service to Fly.io every Tuesday.');
    expect(result.recall).not.toContain('pnpm'); // only what is relevant to the question
    const search = JSON.parse(result.search) as { results: Array<{ memory: string }> };
    expect(search.results.map((r) => r.memory)).toContain(
      'I deploy the billing service to Fly.io every Tuesday.',
    );
    expect(lines.join('\n')).toContain('Offline: the shipped fake Mem0 Platform');
  });
});
