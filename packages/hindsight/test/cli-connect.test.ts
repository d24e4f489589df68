import fs from 'node:fs';
import path from 'node:path';
import { ManualClock } from '@hermes-memory/core';
import { runProviderCliCommand } from '@hermes-memory/testkit';
import { describe, expect, it } from 'vitest';
import { connectedApiUrl, createHindsightCli } from '../src/cli';
import { fake, home } from './helpers';

const MINTED = 'hsk_minted_by_the_ui_0123456789';

/** The Hindsight UI as the browser would run it: checks what it was opened with, then redirects back. */
function ui(answer: (params: URLSearchParams) => Record<string, string>, seen: URLSearchParams[] = []) {
  return async (url: string) => {
    const opened = new URL(url);
    seen.push(opened.searchParams);
    const back = `http://127.0.0.1:${opened.searchParams.get('port')}/callback`;
    // A forged callback (another page guessing the port) first: it must not end the wait.
    const forged = await fetch(`${back}?${new URLSearchParams({ key: 'hsk_forged', state: 'guessed' })}`);
    expect(forged.status).toBe(400);
    await fetch(`${back}?${new URLSearchParams(answer(opened.searchParams))}`);
  };
}

describe('hermes-memory hindsight connect (the reference’s browser Connect flow)', () => {
  it('stores the key the UI mints as apiKey in hindsight/config.json (0600) with its API URL; a forged callback is refused; the key is never printed', async () => {
    const server = await fake({ apiKey: MINTED });
    const dir = home();
    const seen: URLSearchParams[] = [];
    const cli = createHindsightCli({
      openUrl: ui((p) => ({ key: MINTED, state: p.get('state') ?? '' }), seen),
    });
    const env = {
      HOME: dir,
      HINDSIGHT_CONNECT_URL: 'https://ui.hindsight.example/connect/desktop/',
      HINDSIGHT_API_URL: server.url,
    };
    const run = await runProviderCliCommand(cli, ['connect'], { home: dir, env });
    expect(run.code).toBe(0);
    const [params] = seen;
    expect(params?.get('source')).toBe('hermes-cli');
    expect(params?.get('host')).not.toBe('');
    expect(params?.get('state')).toMatch(/^[\w-]{43}$/);
    expect(run.stderr).toContain('https://ui.hindsight.example/connect/desktop?port=');
    expect(run.stdout).toContain('✓ Connected · Hindsight 0.5.6 · bank: hermes · mode cloud');
    const file = path.join(dir, 'hindsight', 'config.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({
      apiKey: MINTED,
      mode: 'cloud',
      api_url: server.url,
    });
    expect(run.stdout + run.stderr).not.toContain(MINTED);
    expect(JSON.stringify(server.requests)).not.toContain(MINTED);
  });

  it('refuses a credential that is not a Hindsight key, a denial, and a browser that never answers (on the clock); nothing is stored', async () => {
    const dir = home();
    const env = { HOME: dir, HINDSIGHT_CONNECT_URL: 'https://ui.hindsight.example/connect/desktop' };
    const file = path.join(dir, 'hindsight', 'config.json');

    const wrong = createHindsightCli({
      openUrl: ui((p) => ({ key: 'sk-not-hindsight-123', state: p.get('state') ?? '' })),
    });
    const bad = await runProviderCliCommand(wrong, ['connect'], { home: dir, env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('unexpected credential (not a Hindsight API key)');
    expect(bad.stderr).not.toContain('sk-not-hindsight-123');

    const denying = createHindsightCli({
      openUrl: ui((p) => ({ error: 'access_denied', state: p.get('state') ?? '' })),
    });
    const denied = await runProviderCliCommand(denying, ['connect'], { home: dir, env });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('Hindsight connect was denied: access_denied');

    const clock = new ManualClock(0);
    const silent = createHindsightCli({ clock, openUrl: () => clock.advance(300_000) });
    const late = await runProviderCliCommand(silent, ['connect'], { home: dir, env });
    expect(late.code).toBe(1);
    expect(late.stderr).toContain('Hindsight connect: no answer from the browser in time');
    expect(fs.existsSync(file)).toBe(false);
  });

  it('the API URL follows the UI the key was minted in (ui. → api.), HINDSIGHT_API_URL wins, other hosts keep the configured one', () => {
    expect(connectedApiUrl({})).toBe('https://api.hindsight.vectorize.io');
    expect(
      connectedApiUrl({ HINDSIGHT_CONNECT_URL: 'https://ui.dev.hindsight.vectorize.io/connect/desktop' }),
    ).toBe('https://api.dev.hindsight.vectorize.io');
    expect(connectedApiUrl({ HINDSIGHT_CONNECT_URL: 'http://127.0.0.1:9/connect/desktop' })).toBeNull();
    expect(connectedApiUrl({ HINDSIGHT_API_URL: 'http://localhost:8888/' })).toBe('http://localhost:8888');
  });
});
