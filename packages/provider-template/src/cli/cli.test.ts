import fs from 'node:fs';
import path from 'node:path';
import { CliError } from '@hermes-memory/core';
import { providerCliTestContext, runProviderCliCommand, tempHermesHome } from '@hermes-memory/testkit';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_TEMPLATE_KEY, startFakeTemplate } from '../testing';
import templateCli from './index';

const backend = await startFakeTemplate();
afterAll(() => backend.close());
beforeEach(() => backend.reset());

const homes: Array<{ cleanup(): void }> = [];
afterEach(() => {
  for (const home of homes.splice(0)) home.cleanup();
});

/** A HERMES_HOME whose config.yaml points at `baseURL`, with `key` in its .env (as setup saves them). */
function home(options: { baseURL?: string; key?: string; extra?: string } = {}): string {
  const h = tempHermesHome('hm-template-cli-');
  homes.push(h);
  const lines = [
    'memory:',
    '  provider: template',
    '  template:',
    `    base_url: ${options.baseURL ?? backend.url}`,
  ];
  if (options.extra) lines.push(`    ${options.extra}`);
  fs.writeFileSync(path.join(h.path, 'config.yaml'), `${lines.join('\n')}\n`);
  if (options.key !== '')
    fs.writeFileSync(path.join(h.path, '.env'), `TEMPLATE_API_KEY=${options.key ?? FAKE_TEMPLATE_KEY}\n`, {
      mode: 0o600,
    });
  return h.path;
}

const run = (h: string, argv: string[], json = false) =>
  runProviderCliCommand(templateCli, argv, { home: h, json });
const ctx = (h: string) => providerCliTestContext(templateCli, { home: h }).ctx;

describe('hermes-memory template (the ./cli module)', () => {
  it('is declared in the manifest and exported as ./cli, with a check command', () => {
    const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8'));
    expect(pkg.hermesMemory).toEqual({ provider: 'template', cli: './cli' });
    expect(Object.keys(pkg.exports)).toContain('./cli');
    expect(templateCli.provider).toBe('template');
    expect(templateCli.commands?.map((c) => c.name)).toEqual(['check']);
    for (const c of templateCli.commands ?? []) expect(c.usage).toMatch(/^Usage: hermes-memory template /);
  });

  it('status: where it connects and whether a key is set, without contacting the service', async () => {
    const h = home({ baseURL: `http://user:hunter2secret@127.0.0.1:${backend.port}/?token=abc123secret` });
    const status = await templateCli.status!(ctx(h));
    expect(status.details).toEqual({
      endpoint: `http://127.0.0.1:${backend.port}/?token=%5Bredacted%5D`,
      api_key: 'set',
      enabled: true,
    });
    expect(JSON.stringify(status)).not.toMatch(/hunter2secret|abc123secret|test-template-key/);
    expect((await templateCli.status!(ctx(home({ key: '' })))).details).toMatchObject({ api_key: 'missing' });
    expect(backend.requests).toEqual([]);
  });

  it('check: one authenticated request; ok with latency, the key sent as Bearer and never printed', async () => {
    const h = home();
    const text = await run(h, ['check']);
    expect(text).toMatchObject({ code: 0, stderr: '' });
    expect(text.stdout).toMatch(/^✓ Template answered at http:\/\/127\.0\.0\.1:\d+\. \d+ ms\n$/);
    const json = await run(h, ['check'], true);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      status: 'ok',
      endpoint: backend.url,
      latencyMs: expect.any(Number),
    });
    expect(backend.requests).toHaveLength(2);
    expect(backend.requests[0]!.headers.authorization).toBe('Bearer [redacted]');
    expect(text.stdout + json.stdout).not.toContain(FAKE_TEMPLATE_KEY);
  });

  it('check fails (exit 1) with the reason: a rejected key, a failing service, no service, no key, a bad setting', async () => {
    const rejected = await run(home({ key: 'wrong-key-123' }), ['check']);
    expect(rejected.code).toBe(1);
    expect(rejected.stdout).toMatch(/^✗ connection failed \(http:\/\/127\.0\.0\.1:\d+\): .*401/);
    expect(rejected.stdout).not.toContain('wrong-key-123');

    backend.fail({ type: 'status', status: 503, count: 1 });
    const down = await run(home(), ['check']);
    expect(down.code).toBe(1);
    expect(down.stdout).toMatch(/503/);

    const closed = await startFakeTemplate();
    const gone = closed.url;
    await closed.close();
    const unreachable = await run(home({ baseURL: gone }), ['check'], true);
    expect(unreachable.code).toBe(1);
    expect(JSON.parse(unreachable.stdout)).toMatchObject({ status: 'failed', endpoint: gone });

    const noKey = await run(home({ key: '' }), ['check']);
    expect(noKey.code).toBe(1);
    expect(noKey.stdout).toContain('No API key: set TEMPLATE_API_KEY');

    const bad = await run(home({ extra: 'max_results: 0' }), ['check']);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/maxResults' must be an integer from 1 to 50/);

    const disabled = await run(home({ extra: 'enabled: false' }), ['check']);
    expect(disabled).toMatchObject({ code: 0 });
    expect(disabled.stdout).toMatch(/disabled/);
    expect(await run(home(), ['check', '--bogus'])).toMatchObject({ code: 2 });
  });

  it('doctor: the settings resolve and a key is set, each with a fix; no network', async () => {
    const ids = async (h: string) => (await templateCli.doctor!(ctx(h))).map((c) => [c.id, c.status]);
    expect(await ids(home())).toEqual([
      ['settings', 'ok'],
      ['key', 'ok'],
    ]);
    const missing = await templateCli.doctor!(ctx(home({ key: '' })));
    expect(missing[1]).toMatchObject({
      id: 'key',
      status: 'fail',
      fix: expect.stringContaining('setup template'),
    });
    const bad = await templateCli.doctor!(ctx(home({ extra: 'timeout_ms: fast' })));
    expect(bad).toEqual([expect.objectContaining({ id: 'settings', status: 'fail' })]);
    expect(bad[0]!.detail).toMatch(/timeoutMs/);
    expect(backend.requests).toEqual([]);
  });

  it('after setup: the same connection test, a clear error when the service does not answer', async () => {
    const saved = { values: {}, envNames: ['TEMPLATE_API_KEY'] };
    const ok = providerCliTestContext(templateCli, { home: home() });
    await templateCli.postSetup!(ok.ctx, saved);
    expect(ok.stdout()).toMatch(/Template answered/);
    let error: unknown;
    try {
      await templateCli.postSetup!(ctx(home({ key: 'wrong-key-123' })), saved);
    } catch (e) {
      error = e;
    }
    expect(CliError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/settings are saved, but the service did not answer: .*401/);
    expect((error as CliError).hint).toMatch(/hermes-memory template check/);
  });
});
