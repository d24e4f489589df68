import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFakeOpenAI } from '@hermes-memory/testkit/fake-openai';
import { afterEach, describe, expect, it } from 'vitest';
import { runQuickstart } from '../src/main';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
});

describe('quickstart (scripted model)', () => {
  it('recalls session 1 in session 2: snapshot, fenced recall, session_search', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-quickstart-test-'));
    homes.push(home);
    let out = '';
    const result = await runQuickstart({
      home,
      env: { PATH: process.env.PATH },
      write: (s) => (out += s),
      color: false,
    });

    expect(result.mode).toBe('scripted');
    expect(out).toContain('scripted model');
    // The preference saved with the memory tool in session 1 is in session 2's frozen snapshot.
    expect(result.systemPrompt).toContain('USER PROFILE (who the user is)');
    expect(result.systemPrompt).toContain('Prefers short answers. Always uses pnpm, never npm.');
    // The fact saved with fact_store comes back fenced for the question.
    expect(result.recall.startsWith('<memory-context>')).toBe(true);
    expect(result.recall).toContain('deploys to Fly.io every Tuesday at 14:00 UTC');
    // session_search finds session 1.
    const search = JSON.parse(result.sessionSearch) as {
      success: boolean;
      results: Array<{ session_id: string }>;
    };
    expect(search.success).toBe(true);
    expect(search.results.map((r) => r.session_id)).toContain(result.sessionIds[0]);
    expect(result.answer).toContain(result.sessionIds[0]);
    expect(result.answer).toContain('Fly.io every Tuesday');
    // The closing checklist bears all of it out.
    expect(out).toContain(`✓ session_search found session 1 (${result.sessionIds[0]}) in state.db.`);
    expect(out.slice(out.indexOf('What happened'))).not.toContain('✗');
    // Memory files are private.
    expect(fs.statSync(path.join(home, 'memories', 'USER.md')).mode & 0o777).toBe(0o600);
    // No ANSI codes when colour is off.
    expect(out).not.toMatch(/\u001b\[/);
    // The closing "Explore" commands run as printed, from any folder (they said `npx hermes-memory`,
    // which a clone does not link: npx would fetch an unrelated package from the registry).
    const explore = [...out.matchAll(/^(?:Explore what was stored:)?\s+(node .+ --home .+)$/gm)].map(
      (m) => m[1]!,
    );
    expect(explore).toHaveLength(2);
    const [status, sessions] = explore.map((command) =>
      execFileSync('sh', ['-c', command], {
        cwd: os.tmpdir(),
        encoding: 'utf8',
        env: { PATH: process.env.PATH, NO_COLOR: '1' },
      }),
    );
    expect(status).toContain(`home       ${home}`);
    expect(status).toMatch(/USER\.md\s+\S+ B\s+1 entries/);
    expect(sessions).toContain(result.sessionIds[0]);
    expect(sessions).toContain(result.sessionIds[1]);
  });

  it('"What happened" reports what this run did: a model that used no tool gets no ✓ for saving or searching', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-quickstart-test-'));
    homes.push(home);
    // a live model (any OpenAI-compatible server) that answers but never calls a memory tool
    const model = await startFakeOpenAI({ apiKey: 'sk-quickstart-test', fallback: () => 'OK.' });
    let out = '';
    try {
      const result = await runQuickstart({
        home,
        env: {
          PATH: process.env.PATH,
          OPENAI_API_KEY: 'sk-quickstart-test',
          OPENAI_BASE_URL: model.url,
          OPENAI_MODEL: 'fake-chat',
        },
        write: (s) => (out += s),
        color: false,
      });
      expect(result.mode).toBe('live');
    } finally {
      await model.close();
    }
    const happened = out.slice(out.indexOf('What happened'));
    expect(happened).not.toContain('✓');
    expect(happened).toContain('✗ Session 1 saved nothing');
    expect(happened).toContain('✗ session_search was not called');
  });
});
