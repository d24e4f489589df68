import fs from 'node:fs';
import path from 'node:path';
import { CliError } from '@hermes-memory/core';
import { providerCliTestContext, runProviderCliCommand } from '@hermes-memory/testkit';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../test-support';
import { type FakeBrv, startFakeBrv, writeContextDoc } from '../testing';
import byteroverCli from './index';

const brv: FakeBrv = await startFakeBrv();
afterAll(() => brv.close());
afterEach(() => {
  brv.clearFaults();
  cleanupTemp();
});

/** A HERMES_HOME whose config.yaml selects byterover with `extra` settings. */
function home(extra: string[] = [`brv_path: ${brv.path}`], dotenv = ''): string {
  const h = tempDir('hm-brv-cli-');
  fs.writeFileSync(
    path.join(h, 'config.yaml'),
    ['memory:', '  provider: byterover', '  byterover:', ...extra.map((l) => `    ${l}`), ''].join('\n'),
  );
  if (dotenv) fs.writeFileSync(path.join(h, '.env'), dotenv, { mode: 0o600 });
  return h;
}
const env = (h: string) => ({ PATH: '/usr/bin:/bin', HOME: h });
const run = (h: string, argv: string[], json = false) =>
  runProviderCliCommand(byteroverCli, argv, { home: h, json, env: env(h) });
const ctx = (h: string) => providerCliTestContext(byteroverCli, { home: h, env: env(h) }).ctx;

describe('hermes-memory byterover (the ./cli module)', () => {
  it('is declared in the manifest and exported as ./cli, with test and status commands', () => {
    const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8'));
    expect(pkg.hermesMemory).toEqual({ provider: 'byterover', cli: './cli' });
    expect(Object.keys(pkg.exports)).toContain('./cli');
    expect(byteroverCli.commands?.map((c) => c.name)).toEqual(['test', 'status']);
    for (const c of byteroverCli.commands ?? []) expect(c.usage).toMatch(/^Usage: hermes-memory byterover /);
  });

  it('status (seam): which brv, the context tree and its size, the settings — without running brv', async () => {
    const h = home([`brv_path: ${brv.path}`, 'auto_extract: false'], 'BRV_API_KEY=brv-secret-key-123\n');
    writeContextDoc(path.join(h, 'byterover'), 'auth/jwt.md', 'JWT', 'Tokens expire after 24 hours.');
    const before = brv.calls();
    const status = await byteroverCli.status!(ctx(h));
    expect(status.details).toEqual({
      brv: brv.path,
      workdir: path.join(h, 'byterover'),
      api_key: 'set',
      auto_extract: false,
      prefetch_mode: 'background',
      waiting_on_disk: 0,
    });
    expect(status.stores).toEqual([
      expect.objectContaining({
        path: path.join(h, 'byterover', '.brv', 'context-tree'),
        exists: true,
        detail: '1 document',
      }),
    ]);
    expect(JSON.stringify(status)).not.toContain('brv-secret-key-123');
    expect(brv.calls()).toBe(before);
    expect((await byteroverCli.status!(ctx(home(['brv_path: /nonexistent/brv'])))).details).toMatchObject({
      brv: 'not found',
    });
  });

  it('test: one `brv status`, ok with latency; fails (exit 1) with the reason when brv is missing, fails or hangs', async () => {
    const h = home();
    const ok = await run(h, ['test']);
    expect(ok).toMatchObject({ code: 0, stderr: '' });
    expect(ok.stdout).toMatch(/^✓ brv 3\.14\.0 answered for .*byterover\. \d+ ms\n$/);
    expect(brv.invocations.at(-1)!.argv).toEqual(['status', '--format', 'json']);
    const json = await run(h, ['test'], true);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'ok', latencyMs: expect.any(Number) });

    const missing = await run(home(['brv_path: /nonexistent/brv']), ['test']);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/npm install -g byterover-cli/);

    brv.fail({ type: 'status', count: 1 });
    const failing = await run(h, ['test']);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toMatch(/✗ brv did not answer: Daemon request failed/);

    const bad = await run(home([`brv_path: ${brv.path}`, 'prefetch_mode: sometimes']), ['test']);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/prefetch_mode' must be 'background' or 'per-query'/);
    expect(await run(h, ['test', '--bogus'])).toMatchObject({ code: 2 });
  });

  it('status --probe adds the probe (exit 1 when brv fails)', async () => {
    const h = home();
    const text = await run(h, ['status', '--probe']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^brv: .*\nworkdir: .*\napi_key: not set \(local only\)\n/);
    expect(text.stdout).toMatch(/✓ brv 3\.14\.0 answered/);
    brv.fail({ type: 'malformed', count: 1 });
    const json = await run(h, ['status', '--probe'], true);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).probe).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/without JSON output/),
    });
  });

  it('doctor: settings, brv installed, the project directory writable — each with a fix; no child process', async () => {
    const before = brv.calls();
    const ids = async (h: string) => (await byteroverCli.doctor!(ctx(h))).map((c) => [c.id, c.status]);
    expect(await ids(home())).toEqual([
      ['settings', 'ok'],
      ['brv', 'ok'],
      ['workdir', 'ok'],
    ]);
    const missing = await byteroverCli.doctor!(ctx(home(['brv_path: /nonexistent/brv'])));
    expect(missing[1]).toMatchObject({
      id: 'brv',
      status: 'fail',
      fix: expect.stringContaining('npm install -g byterover-cli'),
    });
    const bad = await byteroverCli.doctor!(ctx(home(['prefetch_mode: sometimes'])));
    expect(bad).toEqual([expect.objectContaining({ id: 'settings', status: 'fail' })]);
    expect(brv.calls()).toBe(before);
  });

  it('after setup: the same test, a clear error when brv does not answer', async () => {
    const ok = providerCliTestContext(byteroverCli, { home: home(), env: env(tempDir()) });
    await byteroverCli.postSetup!(ok.ctx, { values: {}, envNames: [] });
    expect(ok.stdout()).toMatch(/brv 3\.14\.0 answered/);
    let error: unknown;
    try {
      await byteroverCli.postSetup!(ctx(home(['brv_path: /nonexistent/brv'])), { values: {}, envNames: [] });
    } catch (e) {
      error = e;
    }
    expect(CliError.isInstance(error)).toBe(true);
    expect((error as CliError).hint).toMatch(/hermes-memory byterover test/);
  });
});
