import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runAgentDemo } from '../src/main';
import { CONVERSATION } from '../src/scripted-model';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
});

interface SentMessage {
  role: string;
  content: unknown;
}

describe('ai-sdk-agent (scripted model)', () => {
  it('session 2 recalls session 1: snapshot, fenced recall, session_search', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-ai-sdk-agent-test-'));
    homes.push(home);
    let out = '';
    const result = await runAgentDemo({ home, env: { PATH: process.env.PATH }, write: (s) => (out += s) });

    expect(result.mode).toBe('scripted');
    expect(out).toContain('Scripted mode');
    expect(out).toContain('not a real LLM');

    // Session 1's memory tool write is in session 2's frozen snapshot…
    expect(result.systemPrompt).toContain('USER PROFILE (who the user is)');
    expect(result.systemPrompt).toContain('Prefers short answers. Uses pnpm, never npm.');
    // …its fact comes back fenced for the question…
    expect(result.recall.startsWith('<memory-context>')).toBe(true);
    expect(result.recall).toContain('deploys to Fly.io every Tuesday at 14:00 UTC');
    // …and session_search (fed by createMemoryHooks → syncAll) finds session 1.
    const search = JSON.parse(result.sessionSearch) as {
      success: boolean;
      results: Array<{ session_id: string }>;
    };
    expect(search.success).toBe(true);
    expect(search.results.map((r) => r.session_id)).toContain(result.sessionIds[0]);
    expect(result.answer).toContain('You are Maya');
    expect(result.answer).toContain('deploys to Fly.io every Tuesday at 14:00 UTC');
    expect(result.answer).toContain(result.sessionIds[0]);
    // The closing "Explore" command runs as printed, from any folder (it said `npx hermes-memory`,
    // which a clone does not link: npx would fetch an unrelated package from the registry).
    const explore = /^Explore what was stored:\s+(node .+ --home .+)$/m.exec(out)?.[1];
    expect(explore).toBeDefined();
    const status = execFileSync('sh', ['-c', explore!], {
      cwd: os.tmpdir(),
      encoding: 'utf8',
      env: { PATH: process.env.PATH, NO_COLOR: '1' },
    });
    expect(status).toContain(`home       ${home}`);
    expect(status).toMatch(/state\.db\s+\S+ KB\s+2 sessions/);

    // What went over HTTP: session 2's requests carry the snapshot in the system message and the
    // recall on the question, on BOTH steps of the tool loop; earlier user messages stay clean.
    const session2 = result.requests
      .filter((r) => r.path.endsWith('/chat/completions'))
      .map((r) => (r.body as { messages: SentMessage[] }).messages)
      .filter((messages) =>
        messages.some((m) => m.role === 'user' && String(m.content).startsWith(CONVERSATION.session2[0])),
      );
    expect(session2).toHaveLength(2);
    for (const messages of session2) {
      const system = messages.filter((m) => m.role === 'system');
      expect(system).toHaveLength(1);
      expect(String(system[0]!.content)).toContain('Prefers short answers. Uses pnpm, never npm.');
      const users = messages.filter((m) => m.role === 'user');
      expect(String(users.at(-1)!.content)).toContain('<memory-context>');
    }
    // In every request, recall only ever rides on the current (last) user message.
    for (const request of result.requests.filter((r) => r.path.endsWith('/chat/completions'))) {
      const users = (request.body as { messages: SentMessage[] }).messages.filter((m) => m.role === 'user');
      expect(users.slice(0, -1).some((m) => String(m.content).includes('<memory-context>'))).toBe(false);
    }
    expect(fs.statSync(path.join(home, 'memories', 'USER.md')).mode & 0o777).toBe(0o600);
  });
});
