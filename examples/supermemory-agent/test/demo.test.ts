import { describe, expect, it } from 'vitest';
import { EXPLICIT_FACT, runDemo } from '../src/main';

describe('supermemory-agent (offline, shipped fake)', () => {
  it('session 2 recalls session 1 on its first turn, and supermemory_search finds it', async () => {
    const lines: string[] = [];
    const result = await runDemo({ env: { PATH: process.env.PATH }, write: (line) => lines.push(line) });
    expect(result.mode).toBe('fake');
    expect(result.recall).toContain('<memory-context>');
    expect(result.recall).toContain('<supermemory-context>');
    expect(result.recall).toContain(`## User Profile (Persistent)\n- ${EXPLICIT_FACT}`);
    // Session 1's conversation, as recent context (the same text as a search hit is not repeated).
    expect(result.recall).toMatch(
      /## Recent Context\n(- .*\n)*- I am Maya\. I deploy the billing service to Fly\.io every Tuesday\./,
    );
    expect(result.recall.match(/I deploy the billing service/g)).toHaveLength(1);
    const search = JSON.parse(result.search) as { results: Array<{ content: string }> };
    expect(search.results[0]?.content).toBe(
      'I am Maya. I deploy the billing service to Fly.io every Tuesday.',
    );
    expect(lines.join('\n')).toContain('Offline: the shipped fake Supermemory API');
  });
});
