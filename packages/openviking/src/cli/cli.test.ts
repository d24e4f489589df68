import fs from 'node:fs';
import path from 'node:path';
import { providerCliTestContext, runProviderCliCommand, tempHermesHome } from '@hermes-memory/testkit';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { markerFile, markersDir } from '../sessions/markers';
import { startFakeOpenviking } from '../testing';
import openvikingCli from './index';

const KEY = 'ov-cli-user-key-42';
const backend = await startFakeOpenviking({ apiKey: KEY, rootKey: 'ov-cli-root-key-42' });
afterAll(() => backend.close());
beforeEach(() => backend.reset());

const homes: Array<{ cleanup(): void }> = [];
afterEach(() => {
  for (const h of homes.splice(0)) h.cleanup();
});

function home(options: { endpoint?: string; key?: string } = {}): string {
  const h = tempHermesHome('hm-ov-cli-');
  homes.push(h);
  fs.writeFileSync(
    path.join(h.path, 'config.yaml'),
    `memory:\n  provider: openviking\n  openviking:\n    endpoint: ${options.endpoint ?? backend.url}\n`,
  );
  if (options.key !== '')
    fs.writeFileSync(path.join(h.path, '.env'), `OPENVIKING_API_KEY=${options.key ?? KEY}\n`, {
      mode: 0o600,
    });
  return h.path;
}
const run = (h: string, argv: string[], json = false, env: Record<string, string> = {}) =>
  runProviderCliCommand(openvikingCli, argv, { home: h, json, env });

describe('hermes-memory openviking (the ./cli module)', () => {
  it('is declared in the manifest and exported as ./cli: status, setup, test, doctor', () => {
    const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8'));
    expect(pkg.hermesMemory).toEqual({ provider: 'openviking', cli: './cli' });
    expect(openvikingCli.commands?.map((c) => c.name)).toEqual(['status', 'setup', 'test', 'doctor']);
    for (const c of openvikingCli.commands ?? [])
      expect(c.usage).toMatch(/^Usage: hermes-memory openviking /);
  });

  it('status: settings and their sources without the network; --probe tests the connection; the key never printed', async () => {
    const h = home();
    const plain = await run(h, ['status']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain(`endpoint          ${backend.url}`);
    expect(plain.stdout).toContain('api_key           set (env)');
    expect(backend.requests).toEqual([]);
    const probed = await run(h, ['status', '--probe'], true);
    expect(probed.code).toBe(0);
    expect(JSON.parse(probed.stdout).probe).toMatchObject({ status: 'ok', user: 'default', keyRole: 'user' });
    expect(plain.stdout + probed.stdout).not.toContain(KEY);
    const down = await run(home({ endpoint: 'http://127.0.0.1:1' }), ['status', '--probe']);
    expect(down.code).toBe(1);
    expect(down.stdout).toMatch(/✗ OpenViking server at http:\/\/127\.0\.0\.1:1: .*failed/);
  });

  it('test: the identity probe, status and key role; a wrong key or an unsafe endpoint fails clearly', async () => {
    const ok = await run(home(), ['test']);
    expect(ok).toMatchObject({ code: 0, stderr: '' });
    expect(ok.stdout).toMatch(
      /^✓ OpenViking 0\.3\.0-fake answered at http:\/\/127\.0\.0\.1:\d+ \(user default\)\. \d+ ms\n {2}key: user key\n$/,
    );
    expect(backend.requests[0]!.path).toBe('/health');
    const wrong = await run(home({ key: 'not-the-key-000' }), ['test']);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toMatch(/UNAUTHENTICATED/);
    expect(wrong.stdout).not.toContain('not-the-key-000');
    const unsafe = await run(home({ endpoint: 'http://169.254.169.254' }), ['test']);
    expect(unsafe.code).toBe(1);
    expect(unsafe.stdout).toMatch(/blocked address/);
  });

  it('setup: saves the endpoint (normalised), tenant and peer; the key goes to .env (0600) from a named variable', async () => {
    const h = home({ key: '' });
    const saved = await run(
      h,
      ['setup', '--endpoint', 'localhost', '--agent', 'hermes', '--api-key-env', 'MY_OV_KEY'],
      false,
      { MY_OV_KEY: `${KEY}\r\nINJECTED=1` },
    );
    expect(saved).toMatchObject({ code: 0, stderr: '' });
    const config = fs.readFileSync(path.join(h, 'config.yaml'), 'utf8');
    expect(config).toContain('endpoint: http://localhost:1933');
    expect(config).toContain('agent: hermes');
    expect(config).not.toContain(KEY);
    const env = fs.readFileSync(path.join(h, '.env'), 'utf8');
    expect(env).toBe(`OPENVIKING_API_KEY="${KEY}INJECTED=1"\n`); // CR/LF stripped: no second line
    expect(fs.statSync(path.join(h, '.env')).mode & 0o777).toBe(0o600);
    expect((await run(h, ['setup', '--endpoint', 'http://u:p@x.example'])).code).toBe(2);
    expect((await run(h, ['setup', '--endpoint', 'http://x.example', '--account', '_root'])).code).toBe(2);
  });

  it('setup --profile links an OpenViking CLI profile and drops stale OPENVIKING_* lines from .env', async () => {
    const h = home();
    const ovHome = path.join(h, 'fake-home');
    fs.mkdirSync(path.join(ovHome, '.openviking'), { recursive: true });
    fs.writeFileSync(
      path.join(ovHome, '.openviking', 'ovcli.conf.work'),
      JSON.stringify({ url: backend.url, api_key: KEY }),
    );
    const listed = await run(h, ['setup', '--list-profiles'], true, { HOME: ovHome });
    expect(JSON.parse(listed.stdout).profiles).toEqual([
      {
        name: 'work',
        source: 'saved',
        path: path.join(ovHome, '.openviking', 'ovcli.conf.work'),
        active: false,
      },
    ]);
    const linked = await run(h, ['setup', '--profile', 'work'], false, { HOME: ovHome });
    expect(linked.code).toBe(0);
    expect(fs.readFileSync(path.join(h, '.env'), 'utf8')).not.toContain('OPENVIKING_API_KEY');
    const config = fs.readFileSync(path.join(h, 'config.yaml'), 'utf8');
    expect(config).toContain('use_ovcli_config: true');
    expect((await run(h, ['test'], false, { HOME: ovHome })).code).toBe(0);
  });

  it('doctor: settings, orphaned sessions (a marker whose run is gone) and folder permissions', async () => {
    const h = home();
    fs.mkdirSync(markersDir(h), { recursive: true, mode: 0o755 });
    fs.chmodSync(markersDir(h), 0o755);
    fs.writeFileSync(
      markerFile(h, 'orphan'),
      JSON.stringify({ session_id: 'orphan', owner_run_id: 'gone-run' }),
    );
    const { ctx } = providerCliTestContext(openvikingCli, { home: h });
    const checks = await openvikingCli.doctor!(ctx);
    expect(checks.map((c) => [c.id, c.status])).toEqual([
      ['settings', 'ok'],
      ['pending', 'warn'],
      ['permissions', 'warn'],
    ]);
    const out = await run(h, ['doctor']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('orphan');
    expect((await openvikingCli.status!(ctx)).details).toMatchObject({
      pending_sessions: 1,
      endpoint_from: 'config',
    });
  });
});
