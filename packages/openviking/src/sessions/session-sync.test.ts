import fs from 'node:fs';
import path from 'node:path';
import type { ChatMessage, ManualClock } from '@hermes-memory/core';
import { afterEach, describe, expect, it } from 'vitest';
import { advanceUntil, type Rig, rig, toolTurn } from '../test-support/rig';
import { markerFile } from './markers';
import { runsDir } from './run-lock';
import { turnMessages } from './turn-messages';

const rigs: Rig[] = [];
afterEach(async () => {
  for (const r of rigs.splice(0)) await r.close();
});
async function open(options: Parameters<typeof rig>[0] = {}): Promise<Rig> {
  const r = await rig(options);
  rigs.push(r);
  return r;
}
const commits = (r: Rig, sid?: string) =>
  r.backend.requests.filter(
    (q) => q.route === 'POST /api/v1/sessions/:sid/commit' && (!sid || q.params.sid === sid),
  ).length;
const batches = (r: Rig) => r.backend.requestsTo('POST /api/v1/sessions/:sid/messages/batch');

describe('turns become session messages', () => {
  it('§4.9.10 the current turn as structured messages: tool parts, results grouped, recall tools dropped, peer_id on assistants', async () => {
    const r = await open({ provider: { agent: 'hermes' } });
    const transcript = [
      { role: 'user' as const, content: 'an earlier turn' },
      { role: 'assistant' as const, content: 'earlier reply' },
      ...toolTurn('list my files please', 'You have file-a and file-b.'),
    ];
    r.provider.syncTurn('list my files please', 'You have file-a and file-b.', { messages: transcript });
    await r.provider.idle();
    const [batch] = batches(r);
    const sent = (batch!.body as { messages: unknown[] }).messages;
    expect(sent).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'list my files please' }] },
      {
        role: 'assistant',
        peer_id: 'hermes',
        parts: [
          {
            type: 'tool',
            tool_id: 'c3',
            tool_name: 'web_fetch',
            tool_input: { url: 'https://a.example' },
            tool_status: 'pending',
          },
        ],
      },
      {
        role: 'assistant',
        peer_id: 'hermes',
        parts: [
          {
            type: 'tool',
            tool_id: 'c1',
            tool_name: 'terminal',
            tool_input: { cmd: 'ls' },
            tool_status: 'completed',
            tool_output: 'file-a\nfile-b',
          },
        ],
      },
      {
        role: 'assistant',
        peer_id: 'hermes',
        parts: [{ type: 'text', text: 'You have file-a and file-b.' }],
      },
    ]);
    expect(JSON.stringify(sent)).not.toContain('viking_search');
  });

  it('§4.9.10 batches of at most 100 messages', () => {
    const transcript: ChatMessage[] = [{ role: 'user', content: 'run many tools' }];
    for (let i = 0; i < 120; i++) {
      transcript.push({
        role: 'assistant',
        content: '',
        tool_calls: [{ id: `t${i}`, type: 'function', function: { name: 'terminal', arguments: '{}' } }],
      });
      transcript.push({ role: 'tool', tool_call_id: `t${i}`, content: `out ${i}` });
      transcript.push({ role: 'assistant', content: `step ${i}` });
    }
    transcript.push({ role: 'assistant', content: 'all done' });
    expect(turnMessages('run many tools', 'all done', transcript, '').length).toBe(242);
  });

  it('§4.9.10 a long turn goes in batches of ≤100; a refused batch falls back to plain text', async () => {
    const r = await open();
    const transcript: ChatMessage[] = [{ role: 'user', content: 'run many tools' }];
    for (let i = 0; i < 120; i++) {
      transcript.push({
        role: 'assistant',
        content: '',
        tool_calls: [{ id: `t${i}`, type: 'function', function: { name: 'terminal', arguments: '{}' } }],
      });
      transcript.push({ role: 'tool', tool_call_id: `t${i}`, content: `out ${i}` });
      transcript.push({ role: 'assistant', content: `step ${i}` });
    }
    transcript.push({ role: 'assistant', content: 'all done' });
    r.provider.syncTurn('run many tools', 'all done', { messages: transcript });
    await r.provider.idle();
    expect(batches(r).map((b) => (b.body as { messages: unknown[] }).messages.length)).toEqual([
      100, 100, 42,
    ]);
    r.backend.fail({ type: 'status', status: 400, route: 'POST /api/v1/sessions/:sid/messages/batch' });
    r.provider.syncTurn('x'.repeat(5000), 'y'.repeat(5000), {
      messages: toolTurn('x'.repeat(5000), 'y'.repeat(5000)),
    });
    await r.provider.idle();
    const plain = (batches(r).at(-1)!.body as { messages: Array<{ parts: Array<{ text: string }> }> })
      .messages;
    expect(plain.map((m) => m.parts[0]!.text.length)).toEqual([4000, 4000]);
  });

  it('§4.9.10 a failed upload is retried once with a fresh client, then sent one message at a time', async () => {
    const r = await open();
    const route = 'POST /api/v1/sessions/:sid/messages/batch';
    r.backend.fail({ type: 'status', status: 500, route, count: 2 });
    r.provider.syncTurn('first turn text here', 'reply one', {
      messages: toolTurn('first turn text here', 'reply one'),
    });
    await r.provider.idle();
    expect(batches(r).map((b) => b.status)).toEqual([500, 500, 200]);
    r.backend.fail({ type: 'status', status: 500, route, count: 3 });
    r.provider.syncTurn('second turn text here', 'reply two');
    await r.provider.idle();
    expect(
      r.backend
        .requestsTo('POST /api/v1/sessions/:sid/messages')
        .map((q) => (q.body as { role: string }).role),
    ).toEqual(['user', 'assistant']);
    expect(r.backend.state.sessions.s1!.messages).toHaveLength(6);
  });

  it('§4.9.11 the writer posts to the session current when syncTurn was called, even if it rotates at once', async () => {
    const r = await open();
    r.provider.syncTurn('a fact from session one', 'ok');
    r.provider.onSessionSwitch('s2', { reset: true });
    r.provider.syncTurn('a fact from session two', 'ok');
    await r.provider.idle();
    const text = (sid: string) =>
      JSON.stringify(r.backend.state.sessions[sid]?.messages ?? []) + JSON.stringify(r.backend.state.nodes);
    expect(
      r.backend.requestsTo('POST /api/v1/sessions/:sid/messages/batch').map((q) => q.params.sid),
    ).toEqual(['s1', 's2']);
    expect(text('s2')).toContain('session two');
    expect(JSON.stringify(r.backend.state.sessions.s2!.messages)).not.toContain('session one');
  });
});

describe('commits', () => {
  it('§4.9.12 commit waits for the writers of the session; a hung writer means no commit (the session stays pending)', async () => {
    const r = await open({ provider: { timeoutMs: 120_000 } });
    const clock = r.clock as ManualClock;
    r.backend.fail({ type: 'timeout', route: 'POST /api/v1/sessions/:sid/messages/batch', count: 10 });
    r.provider.syncTurn('a turn that hangs on the wire', 'ok');
    let ended = false;
    const ending = r.provider.onSessionEnd([]).then(() => (ended = true));
    await advanceUntil(clock, () => ended, { stepMs: 10_000 });
    await ending;
    expect(commits(r)).toBe(0);
    expect(r.logs.contains(/still being written; not committing/)).toBe(true);
    expect(fs.existsSync(markerFile(r.home, 's1'))).toBe(true);
  });

  it('§4.9.12 §4.9.13 end drains then commits once; markers written (0600, owner run) and removed; the latch holds', async () => {
    const r = await open();
    r.provider.syncTurn('I prefer window seats on long flights', 'Noted.');
    await r.provider.idle();
    const marker = markerFile(r.home, 's1');
    expect(JSON.parse(fs.readFileSync(marker, 'utf8'))).toEqual({
      session_id: 's1',
      owner_run_id: r.provider.runId,
    });
    expect(fs.statSync(marker).mode & 0o777).toBe(0o600);
    await r.provider.onSessionEnd([]);
    expect(commits(r, 's1')).toBe(1);
    expect(fs.existsSync(marker)).toBe(false);
    const extracted = Object.keys(r.backend.state.nodes).filter((u) =>
      u.includes('/memories/preferences/mem_'),
    );
    expect(extracted).toHaveLength(1);
    // end, then switch: committed once; a stale turn count does not beat the latch.
    r.provider.onSessionSwitch('s2', { reset: true });
    await r.provider.idle();
    await r.provider.onSessionEnd([]);
    expect(commits(r, 's1')).toBe(1);
    expect(commits(r, 's2')).toBe(0);
  });

  it('§4.9.13 no commit for an empty session; a commit when only the server holds pending tokens', async () => {
    const r = await open();
    await r.provider.onSessionEnd([]);
    expect(commits(r)).toBe(0);
    r.provider.onSessionSwitch('s2', {});
    // Another client wrote to s2 (this run synced nothing): the server reports pending tokens.
    r.backend.state.sessions.s2 = {
      id: 's2',
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'written elsewhere, still pending' }] }],
      archived: 0,
      commits: 0,
    };
    await r.provider.onSessionEnd([]);
    expect(commits(r, 's2')).toBe(1);
  });

  it('§4.9.13 in-place compression re-arms the commit of the same session', async () => {
    const r = await open();
    r.provider.syncTurn('before compression the user said hello', 'ok');
    await r.provider.onSessionEnd([]);
    r.provider.onSessionSwitch('s1', { reason: 'compression' });
    r.provider.syncTurn('after compression the user said goodbye', 'ok');
    await r.provider.onSessionEnd([]);
    expect(commits(r, 's1')).toBe(2);
  });

  it('§4.9.13 a failed commit leaves the session dirty; the next boundary retries it', async () => {
    const r = await open();
    r.provider.syncTurn('the user lives in Lisbon now', 'ok');
    r.backend.fail({ type: 'status', status: 500, route: 'POST /api/v1/sessions/:sid/commit' });
    await r.provider.onSessionEnd([]);
    expect(r.provider.sessionState!.isCommitted('s1')).toBe(false);
    expect(fs.existsSync(markerFile(r.home, 's1'))).toBe(true);
    await r.provider.onSessionEnd([]);
    expect(r.provider.sessionState!.isCommitted('s1')).toBe(true);
  });

  it('§4.9.14 a switch rotates synchronously and commits the old session in the background, after its writers', async () => {
    const r = await open();
    r.provider.syncTurn('the old session has one turn', 'ok');
    const before = r.backend.requests.length;
    expect(r.provider.onSessionSwitch('s2', { reset: true })).toBeUndefined();
    expect(r.provider.sessionState!.sessionId).toBe('s2');
    expect(r.backend.requests.length).toBe(before); // nothing on the caller's path
    await r.provider.idle();
    const order = r.backend.requests.filter((q) => q.params.sid === 's1').map((q) => q.route);
    expect(order).toEqual(['POST /api/v1/sessions/:sid/messages/batch', 'POST /api/v1/sessions/:sid/commit']);
    // A rewind to the same id commits nothing.
    r.provider.onSessionSwitch('s2', { rewound: true });
    await r.provider.idle();
    expect(commits(r, 's2')).toBe(0);
  });

  it('§4.9.14 the background finaliser drains at most 65 s; a hung writer means no commit', async () => {
    const r = await open({ provider: { timeoutMs: 300_000 } });
    const clock = r.clock as ManualClock;
    r.backend.fail({ type: 'timeout', route: 'POST /api/v1/sessions/:sid/messages/batch', count: 10 });
    r.provider.syncTurn('a turn that hangs on the wire', 'ok');
    r.provider.onSessionSwitch('s2', { reset: true });
    const started = clock.now();
    await advanceUntil(clock, () => r.logs.contains(/still has a writer after 65 s/), { stepMs: 65_000 });
    expect(clock.now() - started).toBe(65_000);
    expect(commits(r)).toBe(0);
  });

  it('§4.9.22 shutdown commits the live session, waits for finalisers and releases the run lock', async () => {
    const r = await open();
    const lock = path.join(runsDir(r.home), `${r.provider.runId}.lock`);
    expect(fs.existsSync(lock)).toBe(true);
    r.provider.syncTurn('the first session had a fact', 'ok');
    r.provider.onSessionSwitch('s2', { reset: true });
    r.provider.syncTurn('the second session had another fact', 'ok');
    await r.provider.shutdown({ timeoutMs: 5000 });
    expect(commits(r, 's1')).toBe(1);
    expect(commits(r, 's2')).toBe(1);
    expect(fs.existsSync(lock)).toBe(false);
    expect(fs.readdirSync(path.join(r.home, 'openviking', 'pending_sessions'))).toEqual([]);
    r.provider.syncTurn('after shutdown nothing is written', 'ok');
    expect(r.provider.pendingWork).toBe(0);
  });
});
