import { describe, expect, it } from 'vitest';
import { scriptedLlm } from '../../test/helpers/llm';
import { tempHome } from '../../test/helpers/temp';
import {
  formatTranscript,
  handleClassicSessionSearch,
  truncateAroundMatches,
} from './session-search-classic';
import { SessionStore } from './session-store';

function world() {
  const s = new SessionStore({ hermesHome: tempHome() });
  for (const id of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) {
    s.createSession(id, { source: 'cli' });
    s.appendMessages(id, [
      { role: 'user', content: `postgres migration question in ${id}` },
      {
        role: 'assistant',
        content: 'ran the migration',
        toolCalls: [{ id: 't', type: 'function', function: { name: 'terminal', arguments: '{}' } }],
      },
      { role: 'tool', content: 'x'.repeat(600), toolName: 'terminal' },
    ]);
  }
  s.createSession('a-child', { parentSessionId: 'a' });
  s.appendMessage('a-child', { role: 'user', content: 'postgres follow-up' });
  return s;
}
const parse = (x: string) =>
  JSON.parse(x) as { success: boolean; results: Array<Record<string, unknown>>; [k: string]: unknown };

describe('session_search (classic design)', () => {
  it('summarises the top sessions through the LlmClient, one per lineage root, limit clamped to 5', async () => {
    const { llm, chatBodies } = await scriptedLlm({ fallback: () => 'The user migrated postgres.' });
    const s = world();
    const r = parse(await handleClassicSessionSearch(s, { query: 'postgres', limit: 50 }, { llm }));
    expect(r.success).toBe(true);
    expect(r.results).toHaveLength(5);
    const ids = r.results.map((x) => x.session_id);
    expect(new Set(ids).size).toBe(5);
    expect(ids).not.toContain('a-child');
    expect(r.results[0]!.summary).toBe('The user migrated postgres.');
    const first = chatBodies()[0]!;
    expect(first.temperature).toBe(0.1);
    expect(String(first.messages[1]!.content)).toContain('Search topic: postgres');
  });

  it('falls back to a raw preview when summarisation fails (93)', async () => {
    const { llm, chatBodies } = await scriptedLlm({ fallback: () => ({ status: 500, error: 'down' }) });
    const s = world();
    const r = parse(
      await handleClassicSessionSearch(s, { query: 'postgres', limit: 1 }, { llm, retryDelayMs: 1 }),
    );
    expect(String(r.results[0]!.summary)).toMatch(/^\[Raw preview — summarization unavailable\]/);
    expect(chatBodies()).toHaveLength(3);
  });

  it('without an LlmClient returns raw previews; non-integer limit falls back to 3 (91)', async () => {
    const s = world();
    const r = parse(await handleClassicSessionSearch(s, { query: 'postgres', limit: 'many' }));
    expect(r.results).toHaveLength(3);
  });

  it('no query lists recent sessions excluding the current lineage (88)', async () => {
    const s = world();
    const r = parse(await handleClassicSessionSearch(s, {}, { currentSessionId: 'a-child' }));
    const ids = r.results.map((x) => x.session_id);
    expect(ids).not.toContain('a');
    expect(ids).not.toContain('a-child');
    expect(String(r.message)).toMatch(/Use a keyword query/);
  });

  it('an object query is an error naming query, not a listing of recent sessions', async () => {
    const r = parse(await handleClassicSessionSearch(world(), { query: ['postgres'] }));
    expect(r.success).toBe(false);
    expect(String(r.error)).toMatch(/query/);
  });

  it('times out cleanly', async () => {
    const { llm, server } = await scriptedLlm();
    server.fail({ type: 'timeout', count: 3 });
    const s = world();
    const r = parse(
      await handleClassicSessionSearch(s, { query: 'postgres', limit: 1 }, { llm, timeoutMs: 50 }),
    );
    expect(r).toEqual({
      success: false,
      error: 'Session summarization timed out. Try a more specific query or reduce the limit.',
    });
  });

  it('formats transcripts like the reference', () => {
    const s = world();
    const t = formatTranscript(s.getMessages('a'));
    expect(t).toContain('[USER]: postgres migration question in a');
    expect(t).toContain('[ASSISTANT]: [Called: terminal]');
    expect(t).toContain(`[TOOL:terminal]: ${'x'.repeat(250)}\n...[truncated]...\n${'x'.repeat(250)}`);
  });

  it('truncates to ≤100,000 chars around the densest matches with markers (92)', () => {
    const text = `${'a '.repeat(60_000)}needle here needle there needle${' b'.repeat(60_000)}`;
    const out = truncateAroundMatches(text, 'needle');
    expect(out.length).toBeLessThanOrEqual(100_000 + 100);
    expect(out).toContain('needle here needle there needle');
    expect(out.startsWith('...[earlier conversation truncated]...')).toBe(true);
    expect(out.endsWith('...[later conversation truncated]...')).toBe(true);
    expect(truncateAroundMatches('short', 'x')).toBe('short');
    const noMatch = truncateAroundMatches('z'.repeat(200_000), 'needle');
    expect(noMatch.startsWith('zzz')).toBe(true);
  });
});
