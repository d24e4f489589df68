import { describe, expect, it } from 'vitest';
import { tempHome } from '../../test/helpers/temp';
import { SESSION_SEARCH_SCHEMA, formatTimestamp, handleSessionSearch } from './session-search';
import { SessionStore } from './session-store';

type Json = Record<string, unknown> & { results: Array<Record<string, unknown>> };
const parse = (s: string) => JSON.parse(s) as Json;

function world() {
  const s = new SessionStore({ hermesHome: tempHome() });
  // root → compression child; a separate session; hidden and cron sessions; the current session.
  s.createSession('root', { source: 'cli', startedAt: 1000, model: 'm-root' });
  s.appendMessages('root', [
    { role: 'user', content: 'we set up the kubernetes ingress', timestamp: 1001 },
    { role: 'assistant', content: 'ingress done with nginx', timestamp: 1002 },
  ]);
  s.endSession('root', 'compression');
  s.createSession('root-child', { source: 'cli', parentSessionId: 'root', startedAt: 1100 });
  s.appendMessages('root-child', [
    { role: 'user', content: 'kubernetes ingress tls certificates', timestamp: 1101 },
  ]);
  s.createSession('other', { source: 'telegram', startedAt: 2000 });
  const otherIds = s.appendMessages(
    'other',
    Array.from({ length: 20 }, (_, i) => ({
      role: i % 2 ? 'assistant' : 'user',
      content: i === 10 ? 'kubernetes upgrade plan for the cluster' : `filler message ${i}`,
      timestamp: 2001 + i,
    })),
  );
  s.createSession('toolsess', { source: 'tool', startedAt: 3000 });
  s.appendMessage('toolsess', { role: 'user', content: 'kubernetes from an integration', timestamp: 3001 });
  s.createSession('subagent', { source: 'subagent', startedAt: 3100 });
  s.appendMessage('subagent', { role: 'user', content: 'kubernetes in a subagent', timestamp: 3101 });
  s.createSession('cronjob', { source: 'cron', startedAt: 3200 });
  s.appendMessage('cronjob', {
    role: 'user',
    content: 'kubernetes kubernetes kubernetes nightly report',
    timestamp: 3201,
  });
  s.createSession('current', { source: 'cli', startedAt: 4000 });
  s.appendMessage('current', { role: 'user', content: 'kubernetes question right now', timestamp: 4001 });
  return { s, otherIds };
}

describe('session_search (current design)', () => {
  it('schema: no mode parameter, sort enum, nothing required', () => {
    const props = SESSION_SEARCH_SCHEMA.parameters.properties as Record<string, { enum?: string[] }>;
    expect(props.mode).toBeUndefined();
    expect(props.sort?.enum).toEqual(['newest', 'oldest']);
    expect(SESSION_SEARCH_SCHEMA.parameters.required).toEqual([]);
  });

  it('browse (no args) lists recent sessions excluding the current one and hidden sources (88, 94)', () => {
    const { s } = world();
    const r = parse(handleSessionSearch(s, {}, { currentSessionId: 'current' }));
    expect(r.mode).toBe('browse');
    const ids = r.results.map((x) => x.session_id);
    expect(ids).not.toContain('current');
    expect(ids).not.toContain('toolsess');
    expect(ids).not.toContain('subagent');
    expect(String(r.message)).toMatch(/most recent sessions/);
  });

  it('discover groups hits by lineage root, hides tool/subagent, demotes cron, skips the current lineage (89–90, 94–95)', () => {
    const { s } = world();
    const r = parse(
      handleSessionSearch(s, { query: 'kubernetes', limit: 10 }, { currentSessionId: 'current' }),
    );
    expect(r.success).toBe(true);
    const roots = r.results.map((x) => (x.parent_session_id as string | undefined) ?? x.session_id);
    expect(new Set(roots).size).toBe(roots.length);
    expect(roots).toContain('root');
    expect(roots).toContain('other');
    for (const hidden of ['toolsess', 'subagent', 'current']) expect(roots).not.toContain(hidden);
    expect(roots[roots.length - 1]).toBe('cronjob');
    for (const res of r.results) {
      expect(typeof res.snippet).toBe('string');
      const ids = (res.messages as Array<{ id: number }>).map((m) => m.id);
      expect(ids).toContain(res.match_message_id);
      expect(typeof res.messages_before).toBe('number');
      expect(typeof res.messages_after).toBe('number');
      expect(Array.isArray(res.bookend_start)).toBe(true);
      expect(Array.isArray(res.bookend_end)).toBe(true);
    }
    expect(r.results[0]!.detail).toBe('full');
    expect(r.results[1]!.detail).toBe('compact');
  });

  it('a hit in a child is reported under its root with parent_session_id', () => {
    const { s } = world();
    const r = parse(handleSessionSearch(s, { query: 'tls certificates' }));
    expect(r.results).toHaveLength(1);
    expect(r.results[0]).toMatchObject({
      session_id: 'root-child',
      parent_session_id: 'root',
      model: 'm-root',
    });
  });

  it('the current lineage is excluded unless it left live context', () => {
    const { s } = world();
    // From inside root-child, root ended by compression: its rows are out of context → searchable.
    const fromChild = parse(handleSessionSearch(s, { query: 'nginx' }, { currentSessionId: 'root-child' }));
    expect(fromChild.results.map((x) => x.session_id)).toEqual(['root']);
    const live = parse(handleSessionSearch(s, { query: 'certificates' }, { currentSessionId: 'root-child' }));
    expect(live.results).toEqual([]);
    expect(live.message).toBe('No matching sessions found.');
  });

  it('clamps limit to [1,10] and falls back to 3 for junk (91)', () => {
    const { s } = world();
    expect(parse(handleSessionSearch(s, { query: 'kubernetes', limit: 0 })).results).toHaveLength(1);
    expect(
      parse(handleSessionSearch(s, { query: 'kubernetes', limit: 'lots' })).results.length,
    ).toBeLessThanOrEqual(3);
    expect(parse(handleSessionSearch(s, { limit: 99 })).results.length).toBeLessThanOrEqual(10);
  });

  it('role filter, sort and full detail', () => {
    const { s } = world();
    expect(parse(handleSessionSearch(s, { query: 'nginx', role_filter: 'user' })).results).toEqual([]);
    const full = parse(handleSessionSearch(s, { query: 'kubernetes', detail: 'full', limit: 5 }));
    expect(full.results.every((x) => x.detail === 'full')).toBe(true);
    const oldest = parse(handleSessionSearch(s, { query: 'kubernetes', sort: 'oldest', limit: 5 }));
    expect(oldest.results[0]!.session_id).toBe('root');
  });

  it('scroll: window clamped to [1,20], anchors validated (95)', () => {
    const { s, otherIds } = world();
    const r = parse(
      handleSessionSearch(s, { session_id: 'other', around_message_id: otherIds[10], window: 100 }),
    );
    expect(r.mode).toBe('scroll');
    expect(r.window).toBe(20);
    expect((r.messages as unknown[]).length).toBe(20);
    const small = parse(
      handleSessionSearch(s, { session_id: 'other', around_message_id: otherIds[10], window: 0 }),
    );
    expect(small.window).toBe(1);
    expect((small.messages as Array<{ anchor?: boolean }>).filter((m) => m.anchor)).toHaveLength(1);
    expect(parse(handleSessionSearch(s, { session_id: 'other', around_message_id: 987654 })).error).toMatch(
      /not in session_id/,
    );
    expect(parse(handleSessionSearch(s, { session_id: 'nope', around_message_id: 1 })).error).toMatch(
      /not found/,
    );
    expect(parse(handleSessionSearch(s, { session_id: 'other', around_message_id: 'x' })).error).toMatch(
      /integer/,
    );
    const cur = s.getMessages('current')[0]!.id;
    expect(
      parse(
        handleSessionSearch(
          s,
          { session_id: 'current', around_message_id: cur },
          { currentSessionId: 'current' },
        ),
      ).error,
    ).toMatch(/current session lineage/);
  });

  it('read returns the whole session, or head + tail when large', () => {
    const { s } = world();
    const r = parse(handleSessionSearch(s, { session_id: 'root' }));
    expect(r).toMatchObject({ mode: 'read', message_count: 2, truncated: false });
    s.createSession('big');
    s.appendMessages(
      'big',
      Array.from({ length: 40 }, (_, i) => ({ role: 'user', content: `n${i}` })),
    );
    const big = parse(handleSessionSearch(s, { session_id: 'big' }));
    expect(big.truncated).toBe(true);
    expect((big.messages as unknown[]).length).toBe(30);
  });

  it('title match comes first', () => {
    const { s } = world();
    s.setSessionTitle('other', 'Cluster upgrade');
    const r = parse(handleSessionSearch(s, { query: '"Cluster upgrade"' }));
    expect(r.results[0]).toMatchObject({ session_id: 'other', matched_role: 'session_title' });
  });

  it('returns JSON errors for unusable queries and malformed args, never throws', () => {
    const { s } = world();
    expect(parse(handleSessionSearch(s, { query: '*** ((' })).error).toMatch(/no searchable words/);
    expect(parse(handleSessionSearch(s, '[1,2]')).success).toBe(false);
    expect(parse(handleSessionSearch(null, {})).success).toBe(false);
  });

  it('a numeric query is searched as its digits; an object query is an error naming query, not a browse', () => {
    const { s } = world();
    s.appendMessage('other', { role: 'user', content: 'the 2024 budget review', timestamp: 2100 });
    const hit = parse(handleSessionSearch(s, { query: 2024 }));
    expect(hit.mode).not.toBe('browse');
    expect(hit.results.map((x) => x.session_id)).toContain('other');
    const bad = parse(handleSessionSearch(s, { query: { text: 'kubernetes' } }));
    expect(bad.success).toBe(false);
    expect(String(bad.error)).toMatch(/query/);
  });

  it('formats timestamps like the reference', () => {
    expect(formatTimestamp(null)).toBe('unknown');
    expect(formatTimestamp('yesterday')).toBe('yesterday');
    expect(formatTimestamp(new Date(2026, 2, 5, 14, 7).getTime() / 1000)).toBe('March 05, 2026 at 02:07 PM');
  });
});
