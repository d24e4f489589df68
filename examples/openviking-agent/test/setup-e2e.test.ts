import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROMPT_CANCELLED, resolveEnv } from '@hermes-memory/core';
import openvikingCli from '@hermes-memory/openviking/cli';
import { startFakeOpenviking } from '@hermes-memory/openviking/testing';
import { type AskedQuestion, runProviderCliCommand, scriptedPrompter } from '@hermes-memory/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { runOpenvikingDemo } from '../src/main';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const choose = (label: string) => (q: AskedQuestion) =>
  q.options?.find((o) => o.label.startsWith(label))?.value ?? PROMPT_CANCELLED;

describe('openviking-agent after a real setup (a keyed server, as a deployed one is)', () => {
  it('setup wizard → status --probe → two sessions: session 2 recalls session 1', async () => {
    const key = 'ov-example-e2e-key-31';
    const server = await startFakeOpenviking({ apiKey: key });
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'openviking-agent-e2e-'));
    dirs.push(home);
    const env = { HOME: path.join(home, 'user-home') };
    try {
      // The wizard as a person answers it: a custom server, a user key, kept in Hermes' .env.
      // (127.0.0.1 is a local server to the wizard, which then also offers "No API key".)
      const p = scriptedPrompter([
        choose('Custom'),
        server.url,
        choose('User API key'),
        key,
        choose('Keep in Hermes only'),
      ]);
      const setup = await runProviderCliCommand(openvikingCli, ['setup'], {
        home,
        env,
        prompter: p.prompter,
      });
      expect(setup).toMatchObject({ code: 0, stderr: '' });
      expect(setup.stdout).toContain('OpenViking API access validated.');

      const status = await runProviderCliCommand(openvikingCli, ['status', '--probe'], {
        home,
        env,
        json: true,
      });
      expect(status.code).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({
        details: { endpoint: server.url, endpoint_from: 'env', api_key: 'set (env)' },
        probe: { status: 'ok', keyRole: 'user' },
      });

      // The agent reads what setup saved: the profile's env with <home>/.env overlaid.
      let out = '';
      const result = await runOpenvikingDemo({ home, env: resolveEnv(home, env), write: (s) => (out += s) });
      expect(result.mode).toBe('live');
      expect(out).toContain('Live mode');
      expect(result.recall).toMatch(/deploy it every Tuesday/);
      expect(out + setup.stdout + status.stdout).not.toContain(key);
    } finally {
      await server.close();
    }
  }, 30_000);
});
