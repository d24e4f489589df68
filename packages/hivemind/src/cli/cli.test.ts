import fs from 'node:fs';
import path from 'node:path';
import { loadEnvFile, loadHermesConfig } from '@hermes-memory/core';
import { providerCliTestContext, runProviderCliCommand, tempHermesHome } from '@hermes-memory/testkit';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { introduceBobAndCarol } from '../test-support';
import {
  FAKE_NOTEBOOK_KEY,
  FAKE_REGISTRATION_TOKEN,
  startFakeHomeserver,
  startFakeNotebook,
} from '../testing';
import hivemindCli from './index';
import { createSetupCommand } from './setup';

const homeserver = await startFakeHomeserver();
const notebook = await startFakeNotebook({
  entries: [{ pseudonym: 'Wandering Echo#4f2a1b', content: 'Hermes agents meet over Matrix.' }],
});
afterAll(async () => {
  await homeserver.close();
  await notebook.close();
});
let home: ReturnType<typeof tempHermesHome>;
beforeEach(() => {
  homeserver.reset();
  notebook.reset();
  home = tempHermesHome('hm-hivemind-cli-');
  fs.writeFileSync(path.join(home.path, 'config.yaml'), 'memory:\n  provider: holographic\n');
});
afterEach(() => home.cleanup());

const run = (argv: string[], json = true) =>
  runProviderCliCommand(hivemindCli, argv, { home: home.path, json });

/** `setup` with `stdin` as its standard input. */
function setup(argv: string[], stdin: string, json = true) {
  const module = {
    ...hivemindCli,
    commands: [createSetupCommand(() => stdin), ...(hivemindCli.commands ?? []).slice(1)],
  };
  return runProviderCliCommand(module, ['setup', ...argv], { home: home.path, json });
}

const mode = (file: string) => fs.statSync(path.join(home.path, file)).mode & 0o777;

describe('hermes-memory hivemind (the ./cli module)', () => {
  it('declares setup, status, test, doctor and peers, the status and doctor lines and the setup check', () => {
    expect(hivemindCli.provider).toBe('hivemind');
    expect(hivemindCli.commands?.map((c) => c.name)).toEqual(['setup', 'status', 'test', 'doctor', 'peers']);
    expect(hivemindCli.status).toBeTypeOf('function');
    expect(hivemindCli.doctor).toBeTypeOf('function');
    expect(hivemindCli.postSetup).toBeTypeOf('function');
    const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8'));
    expect(pkg.hermesMemory).toEqual({ provider: 'hivemind', cli: './cli' });
    expect(Object.keys(pkg.exports)).toContain('./cli');
  });

  it('setup registers with a registration token (two-step UIA), saves 0600 files atomically, joins as a secondary and tests the connection', async () => {
    const result = await setup(
      [
        '--homeserver',
        homeserver.url,
        '--user',
        'hermes-of-bob',
        '--password-stdin',
        '--register',
        '--notebook-url',
        notebook.url,
        '--notebook-key-stdin',
      ],
      `s3cret-pass\n${FAKE_REGISTRATION_TOKEN}\n${FAKE_NOTEBOOK_KEY}\n`,
    );
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({
      homeserver: homeserver.url,
      user_id: '@hermes-of-bob:localhost',
      notebook_url: notebook.url,
      role: 'secondary',
      saved: { env: ['MATRIX_ACCESS_TOKEN', 'HERMES_SECRET_KEY'] },
      connection: { status: 'ok' },
    });
    // Two registration steps: the session, then the token.
    const registers = homeserver.requestsTo('POST /_matrix/client/v3/register');
    expect(registers).toHaveLength(2);
    expect((registers[1]!.body as { auth: { type: string } }).auth.type).toBe('m.login.registration_token');
    const config = loadHermesConfig(home.path);
    expect(config.memory.provider).toBe('holographic');
    expect(config.memory.secondary.map((s) => s.provider)).toEqual(['hivemind']);
    expect(config.memory.providerConfig('hivemind')).toEqual({
      homeserver: homeserver.url,
      user_id: '@hermes-of-bob:localhost',
      notebook_url: notebook.url,
    });
    const env = loadEnvFile(home.path);
    expect(env.MATRIX_ACCESS_TOKEN).toMatch(/^syt_/);
    expect(env.HERMES_SECRET_KEY).toBe(FAKE_NOTEBOOK_KEY);
    expect(mode('.env')).toBe(0o600);
    expect(mode('config.yaml')).toBe(0o600);
    // No secret in the output, the config, or the fakes' recordings; the password is not stored.
    const visible = [
      result.stdout,
      result.stderr,
      fs.readFileSync(path.join(home.path, 'config.yaml'), 'utf8'),
    ];
    for (const secret of [
      's3cret-pass',
      FAKE_REGISTRATION_TOKEN,
      FAKE_NOTEBOOK_KEY,
      env.MATRIX_ACCESS_TOKEN!,
    ]) {
      for (const text of visible) expect(text).not.toContain(secret);
      expect(JSON.stringify([homeserver.requests, notebook.requests])).not.toContain(secret);
    }
    expect(fs.readFileSync(path.join(home.path, '.env'), 'utf8')).not.toContain('s3cret-pass');

    // status, test and peers now work from what was saved.
    const status = JSON.parse((await run(['status', '--probe'])).stdout);
    expect(status.details).toMatchObject({
      role: 'secondary',
      matrix: `@hermes-of-bob:localhost on ${homeserver.url}`,
    });
    expect(status.probes.matrix.status).toBe('ok');
    expect(status.probes.notebook.status).toBe('ok');
    expect((await run(['test'])).code).toBe(0);
  });

  it('setup of an account that exists logs in instead (the reference’s fallback); a wrong password saves nothing', async () => {
    homeserver.registerUser('hermes-of-carol', 'carols-pass');
    const wrong = await setup(
      ['--homeserver', homeserver.url, '--user', 'hermes-of-carol', '--password-stdin'],
      'nope\n',
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/Matrix account setup failed: .*M_FORBIDDEN.*Nothing was saved/);
    expect(wrong.stderr).not.toContain('nope');
    expect(fs.existsSync(path.join(home.path, '.env'))).toBe(false);
    const again = await setup(
      ['--homeserver', homeserver.url, '--user', 'hermes-of-carol', '--password-stdin', '--register'],
      `carols-pass\n${FAKE_REGISTRATION_TOKEN}\n`,
      false,
    );
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^Logged in as @hermes-of-carol:localhost on /);
    expect(again.stdout).toMatch(/Hivemind joins as a read-only secondary beside holographic/);
    expect(again.stdout).toMatch(/Connection: OK/);
  });

  it('setup takes an existing access token (checked with whoami) or a notebook alone; refuses secrets it cannot read and bad flags', async () => {
    for (const [argv, stdin, message] of [
      [['--password-stdin'], 'x\n', /Name the homeserver/],
      [['--homeserver', homeserver.url, '--password-stdin'], 'x\n', /Name the account/],
      [['--register'], '', /--register needs --password-stdin/],
      [['--homeserver', 'ftp://x', '--access-token-stdin'], 't\n', /must be an http\(s\) URL/],
      [
        ['--homeserver', homeserver.url, '--user', 'u', '--password-stdin', '--register'],
        'pass\n',
        /line 2 should hold the registration token/,
      ],
      [[], '', /Nothing to set up/],
      [['--password', 'on-the-command-line'], '', /password/],
    ] as const) {
      const refused = await setup([...argv], stdin);
      expect(refused.code, `${JSON.stringify(argv)}: ${refused.stderr}`).toBe(2);
      expect(refused.stderr).toMatch(message);
    }
    const dave = homeserver.registerUser('dave');
    const token = await setup(
      ['--homeserver', homeserver.url, '--access-token-stdin', '--no-enable'],
      `${dave.accessToken}\n`,
    );
    expect(token.code, token.stderr).toBe(0);
    expect(JSON.parse(token.stdout)).toMatchObject({ user_id: dave.userId, role: 'inactive' });
    expect(loadHermesConfig(home.path).memory.secondary).toEqual([]);
    // A token for another account than --user names is refused.
    const carol = homeserver.registerUser('carol');
    const mismatch = await setup(
      ['--homeserver', homeserver.url, '--user', dave.userId, '--access-token-stdin'],
      `${carol.accessToken}\n`,
    );
    expect(mismatch.code).toBe(1);
    expect(mismatch.stderr).toMatch(/belongs to @carol:localhost, not @dave:localhost/);
    const bad = await setup(['--homeserver', homeserver.url, '--access-token-stdin'], 'syt_not_a_token\n');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/M_UNKNOWN_TOKEN/);
    expect(bad.stderr).not.toContain('syt_not_a_token');

    const notebookOnly = await setup(['--notebook-url', notebook.url], '');
    expect(notebookOnly.code, notebookOnly.stderr).toBe(0);
    expect(loadHermesConfig(home.path).memory.providerConfig('hivemind').notebook_url).toBe(notebook.url);
  });

  it('doctor names what is missing or unsafe; status never contacts anything without --probe', async () => {
    // The module's doctor hook, as `hermes-memory doctor` calls it.
    const unset = await hivemindCli.doctor!(providerCliTestContext(hivemindCli, { home: home.path }).ctx);
    expect(unset.find((c) => c.id === 'matrix')).toMatchObject({ status: 'fail' });
    // Not "configured" beside the Matrix check that says it is not.
    expect(unset.find((c) => c.id === 'role')).toMatchObject({
      status: 'warn',
      detail: 'installed, but named in neither memory.provider nor memory.secondary',
    });
    fs.writeFileSync(
      path.join(home.path, 'config.yaml'),
      `memory:\n  provider: holographic\n  hivemind:\n    homeserver: http://matrix.example.org\n    user_id: "@bob:example.org"\n    access_token: syt_token_kept_in_config\n`,
    );
    fs.chmodSync(path.join(home.path, 'config.yaml'), 0o644);
    const checks = JSON.parse((await run(['doctor'])).stdout).checks as Array<{
      id: string;
      status: string;
      detail: string;
    }>;
    const byId = Object.fromEntries(checks.map((c) => [c.id, c]));
    expect(byId.matrix!.status).toBe('ok');
    expect(byId.tls).toMatchObject({ status: 'warn', detail: expect.stringMatching(/unencrypted/) });
    expect(byId['secrets-in-config']!.status).toBe('warn');
    expect(byId['private-files']!.status).not.toBe('ok');
    expect(byId.role).toMatchObject({
      status: 'warn',
      detail: 'installed and configured, but named in neither memory.provider nor memory.secondary',
    });
    expect(JSON.stringify(checks)).not.toContain('syt_token_kept_in_config');
    const mark = homeserver.requests.length;
    const status = JSON.parse((await run(['status'])).stdout);
    expect(status.details).toMatchObject({ role: 'inactive', notebook: 'not configured' });
    expect(homeserver.requests.length).toBe(mark);
  });

  it('peers lists the peers as the agent sees them (table and --json); test fails clearly without settings', async () => {
    const { bob } = await introduceBobAndCarol(homeserver);
    const untested = await run(['test']);
    expect(untested.code).toBe(1);
    expect(untested.stderr).toMatch(/Hivemind needs a Matrix account .* or a notebook/);
    fs.writeFileSync(
      path.join(home.path, '.env'),
      `MATRIX_HOMESERVER=${homeserver.url}\nMATRIX_USER_ID=${bob.userId}\nMATRIX_ACCESS_TOKEN=${bob.accessToken}\n`,
      { mode: 0o600 },
    );
    const listed = JSON.parse((await run(['peers'])).stdout);
    expect(listed).toMatchObject({ count: 1, peers: [{ name: 'hermes-of-carol', introduced_by: 'alice' }] });
    const table = await run(['peers'], false);
    expect(table.stdout).toMatch(
      /hermes-of-carol\s+hermes-of-carol@localhost\s+alice\s+\d{4}-\d\d-\d\d\s+Carol specializes in TEE attestation and security audits\./,
    );
  });
});
