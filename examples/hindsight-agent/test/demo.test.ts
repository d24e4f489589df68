import { describe, expect, it } from 'vitest';
import { EXPLICIT_FACT, runDemo } from '../src/main';

describe('hindsight-agent (offline, shipped fake)', () => {
  it('session 2 recalls session 1 on its first turn, and hindsight_recall finds the explicit memory', async () => {
    const lines: string[] = [];
    const result = await runDemo({ env: { PATH: process.env.PATH }, write: (line) => lines.push(line) });
    expect(result.mode).toBe('fake');
    expect(result.recall).toContain('<memory-context>');
    expect(result.recall).toContain('# Hindsight Memory (persistent cross-session context)');
    expect(result.recall).toContain('- I am Maya. I deploy the billing service to Fly.io every Tuesday.');
    expect((JSON.parse(result.toolRecall) as { result: string }).result.split('\n')[0]).toBe(
      `1. ${EXPLICIT_FACT}`,
    );
    expect(result.statuses).toEqual(['👁️ Hindsight — saving to memory…', '👁️ Hindsight — saving to memory…']);
    expect(lines.join('\n')).toContain('Offline: the shipped fake Hindsight API');
  });
});
