import fs from 'node:fs';
import path from 'node:path';
import { getConfigValue, loadHermesConfig, ManualClock, PROMPT_CANCELLED } from '@hermes-memory/core';
import {
  type AskedQuestion,
  createFakeExecutable,
  providerCliTestContext,
  runProviderCliCommand,
  type ScriptedAnswer,
  scriptedPrompter,
  tempHermesHome,
} from '@hermes-memory/testkit';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { advanceUntil } from '../test-support/rig';
import { startFakeOpenviking } from '../testing';
import { createSetupCommand } from './commands';
import openvikingCli from './index';
import type { SetupWizardOptions } from './setup-wizard';

const USER_KEY = 'ov-wizard-user-key-7777';
const ROOT_KEY = 'ov-wizard-root-key-8888';
const backend = await startFakeOpenviking({ apiKey: USER_KEY, rootKey: ROOT_KEY });
afterAll(() => backend.close());
beforeEach(() => backend.reset());

/**
 * The same fake reached as a "remote" server: an IPv4-mapped loopback address is neither
 * localhost, 127.0.0.1 nor ::1, so the wizard treats it as remote (as the reference does).
 */
const REMOTE = `http://[::ffff:127.0.0.1]:${backend.port}`;

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

/** A HERMES_HOME and, inside it, the HOME whose `.openviking/` holds the CLI profiles. */
function homes(): { home: string; ovDir: string; env: Record<string, string> } {
  const h = tempHermesHome('hm-ov-wizard-');
  cleanup.push(() => h.cleanup());
  const userHome = path.join(h.path, 'user-home');
  const ovDir = path.join(userHome, '.openviking');
  fs.mkdirSync(ovDir, { recursive: true });
  return { home: h.path, ovDir, env: { HOME: userHome } };
}

/** Pick the option whose label starts with `label` (fails when the picker does not offer it). */
const choose =
  (label: string): ScriptedAnswer =>
  (q: AskedQuestion) => {
    const option = q.options?.find((o) => o.label.startsWith(label));
    if (!option)
      throw new Error(`'${q.message}' offers no '${label}': ${q.options?.map((o) => o.label).join(' | ')}`);
    return option.value;
  };

async function wizard(
  h: { home: string; env: Record<string, string> },
  script: ScriptedAnswer[],
  options: SetupWizardOptions & { env?: Record<string, string> } = {},
) {
  const p = scriptedPrompter(script);
  const module = { ...openvikingCli, commands: [createSetupCommand(options)] };
  const run = await runProviderCliCommand(module, ['setup'], {
    home: h.home,
    env: { ...h.env, ...options.env },
    prompter: p.prompter,
  });
  expect(p.remaining).toEqual([]); // every scripted answer was asked for
  return { ...run, ...p };
}

const read = (file: string) => fs.readFileSync(file, 'utf8');
const mode = (file: string) => fs.statSync(file).mode & 0o777;
const activeProvider = (home: string) => getConfigValue(loadHermesConfig(home), 'memory.provider');
const settings = (home: string) =>
  (getConfigValue(loadHermesConfig(home), 'memory.openviking') ?? {}) as Record<string, unknown>;

describe('hermes-memory openviking setup — the interactive wizard', () => {
  it('§4.8 setup: link a saved profile — validated over the wire, then linked; stale OPENVIKING_* lines leave .env, Hermes-only env stays', async () => {
    const h = homes();
    const work = path.join(h.ovDir, 'ovcli.conf.work');
    fs.writeFileSync(work, JSON.stringify({ url: backend.url, api_key: USER_KEY }));
    fs.writeFileSync(
      path.join(h.ovDir, 'ovcli.conf'),
      JSON.stringify({ url: backend.url, api_key: USER_KEY }),
    );
    fs.writeFileSync(
      path.join(h.home, '.env'),
      'OPENAI_API_KEY=sk-keep-me\nOPENVIKING_ENDPOINT=http://stale.example\nOPENVIKING_API_KEY=stale-key\n',
    );
    const run = await wizard(h, [choose('Use existing'), choose('work')]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.asked[1]!.options).toEqual([
      { value: '0', label: 'work (active)', hint: `${backend.url} (${work})` },
      { value: '1', label: 'Cancel setup', hint: 'no changes saved' },
    ]);
    expect(run.stdout).toBe(
      `  Validating OpenViking profile...\n  Linked profile: work\n  Config file: ${work}\n`,
    );
    expect(run.shown).toEqual([
      'intro:OpenViking memory setup',
      'outro:OpenViking memory is ready. Start a new session to activate.',
    ]);
    expect(activeProvider(h.home)).toBe('openviking');
    expect(settings(h.home)).toEqual({ use_ovcli_config: true, ovcli_config_path: work });
    expect(read(path.join(h.home, '.env'))).toBe('OPENAI_API_KEY=sk-keep-me\n');
    expect(backend.requests.map((r) => r.path)).toEqual([
      '/health',
      '/api/v1/system/status',
      '/api/v1/admin/accounts',
    ]);
    expect(run.stdout + run.stderr + JSON.stringify(backend.requests)).not.toContain(USER_KEY);
  });

  it('§4.8 setup: a profile that fails validation offers another or a retry; a second failure returns to the picker', async () => {
    const h = homes();
    fs.writeFileSync(
      path.join(h.ovDir, 'ovcli.conf.bad'),
      JSON.stringify({ url: backend.url, api_key: 'wrong-key-1' }),
    );
    fs.writeFileSync(
      path.join(h.ovDir, 'ovcli.conf.good'),
      JSON.stringify({ url: backend.url, api_key: USER_KEY }),
    );
    const run = await wizard(h, [
      choose('Use existing'),
      choose('bad'),
      choose('Retry validation'),
      choose('good'),
    ]);
    expect(run.code).toBe(0);
    expect(run.asked.map((q) => q.message)).toEqual([
      'OpenViking config source',
      'OpenViking profile',
      'OpenViking profile validation failed',
      'OpenViking profile',
    ]);
    expect(run.stdout.match(/Validating OpenViking profile\.\.\./g)).toHaveLength(3);
    expect(run.stdout).toMatch(/OpenViking validation failed: .*UNAUTHENTICATED/);
    expect(settings(h.home).ovcli_config_path).toBe(path.join(h.ovDir, 'ovcli.conf.good'));
  });

  it('§4.8 setup: create a remote user-key profile mirrored to ~/.openviking/ovcli.conf.<name> (0600) and linked; the key is asked without echo and never printed', async () => {
    const h = homes();
    fs.writeFileSync(path.join(h.ovDir, 'ovcli.conf.work'), '{"url":"http://other.example"}');
    const run = await wizard(h, [
      choose('Create new'),
      choose('Custom'),
      REMOTE,
      choose('User API key'),
      USER_KEY,
      choose('Mirror to OpenViking store'),
      'bad name!',
      choose('Retry'),
      'work',
      choose('Choose another name'),
      'hermes',
    ]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    // A remote server: no "No API key" choice; the key is a password prompt.
    expect(run.asked[3]).toMatchObject({ message: 'OpenViking API key type' });
    expect(run.asked[3]!.options!.map((o) => o.label)).toEqual([
      'User API key',
      'Root API key',
      'Cancel setup',
    ]);
    expect(run.asked[4]).toEqual({ kind: 'password', message: 'OpenViking user API key' });
    const file = path.join(h.ovDir, 'ovcli.conf.hermes');
    expect(JSON.parse(read(file))).toEqual({
      url: 'http://[::ffff:7f00:1]:' + backend.port,
      api_key: USER_KEY,
    });
    expect(mode(file)).toBe(0o600);
    expect(read(path.join(h.ovDir, 'ovcli.conf.work'))).toBe('{"url":"http://other.example"}');
    expect(settings(h.home)).toEqual({ use_ovcli_config: true, ovcli_config_path: file });
    expect(run.stdout).toBe(
      [
        'Checking OpenViking server...',
        'OpenViking server is reachable.',
        'Validating OpenViking API access...',
        'OpenViking API access validated.',
        "Profile names can only contain letters, numbers, '-' and '_'.",
        'Created and linked OpenViking profile.',
        `Config file: ${file}`,
      ]
        .map((line) => `  ${line}\n`)
        .join(''),
    );
    expect(run.stdout + run.stderr + JSON.stringify(backend.requests)).not.toContain(USER_KEY);
  });

  it('§4.8 setup: keep in Hermes only — the connection goes to .env (0600), other lines byte for byte, config.yaml unlinked and without the key', async () => {
    const h = homes();
    const envFile = path.join(h.home, '.env');
    fs.writeFileSync(
      envFile,
      Buffer.concat([
        Buffer.from('# mine\nOPENAI_API_KEY=sk-keep-me\n'),
        Buffer.from('NAME=Jos\xe9\n', 'latin1'), // not UTF-8: carried over as it is
        Buffer.from('OPENVIKING_ACCOUNT=stale\n'),
      ]),
      { mode: 0o644 },
    );
    fs.writeFileSync(
      path.join(h.home, 'config.yaml'),
      'memory:\n  provider: openviking\n  openviking:\n    use_ovcli_config: true\n    agent: old-peer\n',
    );
    const run = await wizard(h, [
      choose('Custom'),
      REMOTE,
      choose('User API key'),
      USER_KEY,
      choose('Keep in Hermes only'),
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('  Connection saved to Hermes .env.\n');
    const bytes = fs.readFileSync(envFile);
    expect(bytes.includes(Buffer.from('NAME=Jos\xe9\n', 'latin1'))).toBe(true);
    expect(bytes.toString('latin1')).toBe(
      `# mine\nOPENAI_API_KEY=sk-keep-me\nNAME=Jos\xe9\nOPENVIKING_ENDPOINT="http://[::ffff:7f00:1]:${backend.port}"\nOPENVIKING_API_KEY=${USER_KEY}\n`,
    );
    expect(mode(envFile)).toBe(0o600);
    expect(settings(h.home)).toEqual({ use_ovcli_config: false });
    expect(read(path.join(h.home, 'config.yaml'))).not.toContain(USER_KEY);
  });

  it('§4.8 setup: the hosted service is validated only after the key is entered', async () => {
    const h = homes();
    let requestsBeforeKey = -1;
    const run = await wizard(
      h,
      [
        choose('OpenViking Service'),
        (q) => {
          expect(q).toMatchObject({ kind: 'password', message: 'OpenViking API key' });
          requestsBeforeKey = backend.requests.length;
          return USER_KEY;
        },
        choose('Keep in Hermes only'),
      ],
      { serviceEndpoint: backend.url },
    );
    expect(run.code).toBe(0);
    expect(requestsBeforeKey).toBe(0);
    expect(run.stdout).toMatch(
      /^ {2}No existing OpenViking CLI profiles found\. Creating a new config\.\n {2}OpenViking Service endpoint: http:\/\/127\.0\.0\.1:\d+\n {2}Validating OpenViking API access\.\.\.\n/,
    );
    expect(read(path.join(h.home, '.env'))).toContain(`OPENVIKING_API_KEY=${USER_KEY}\n`);
  });

  it('§4.8 setup: a blank remote key cancels without saving; a cancel at any picker writes nothing', async () => {
    const h = homes();
    fs.writeFileSync(path.join(h.home, '.env'), 'OPENVIKING_API_KEY=previous\n');
    const before = fs.readdirSync(h.home).sort();
    const blank = await wizard(h, [
      choose('Custom'),
      REMOTE,
      choose('User API key'),
      '',
      choose('Cancel setup'),
    ]);
    expect(blank.code).toBe(1);
    expect(blank.stdout).toContain('  OpenViking user API key is required.\n');
    expect(blank.asked.at(-1)).toMatchObject({ message: 'OpenViking API key required' });
    expect(blank.shown.at(-1)).toBe('outro:Cancelled. No changes saved.');
    const cancels: ScriptedAnswer[][] = [
      [PROMPT_CANCELLED],
      [choose('Custom'), PROMPT_CANCELLED],
      [choose('Custom'), REMOTE, choose('User API key'), USER_KEY, PROMPT_CANCELLED],
    ];
    for (const script of cancels) {
      expect((await wizard(h, script)).code).toBe(1);
    }
    expect(fs.readdirSync(h.home).sort()).toEqual(before);
    expect(read(path.join(h.home, '.env'))).toBe('OPENVIKING_API_KEY=previous\n');
    expect(fs.readdirSync(h.ovDir)).toEqual([]);
  });

  it('§4.8 setup: root/user key auto-detection reroutes — a user key entered as root, a root key entered as user', async () => {
    const h = homes();
    const asUser = await wizard(h, [
      choose('Custom'),
      REMOTE,
      choose('Root API key'),
      USER_KEY,
      choose('Use as User API key'),
      choose('Keep in Hermes only'),
    ]);
    expect(asUser.code).toBe(0);
    expect(asUser.stdout).toContain(
      '  Validating OpenViking root API key...\n  That key is valid, but it is a user API key.\n  Validating OpenViking API access...\n  OpenViking API access validated.\n',
    );
    expect(asUser.asked.filter((q) => q.kind === 'password')).toHaveLength(1); // reused, not asked again
    expect(read(path.join(h.home, '.env'))).not.toMatch(/OPENVIKING_(ACCOUNT|USER)=/);

    const asRoot = await wizard(h, [
      choose('Custom'),
      REMOTE,
      choose('User API key'),
      ROOT_KEY,
      choose('Configure as Root API key'),
      ' acme', // whitespace is refused
      'alice',
      choose('Retry'),
      'acme',
      'alice',
      choose('Mirror to OpenViking store'),
      'admin',
    ]);
    expect(asRoot.code).toBe(0);
    expect(asRoot.stdout).toContain(
      '  That key is valid, but it has root access.\n  Validating OpenViking root API key...\n  OpenViking root API key validated.\n  Account ID cannot start or end with whitespace.\n',
    );
    expect(JSON.parse(read(path.join(h.ovDir, 'ovcli.conf.admin')))).toEqual({
      url: `http://[::ffff:7f00:1]:${backend.port}`,
      api_key: ROOT_KEY,
      root_api_key: ROOT_KEY,
      account: 'acme',
      user: 'alice',
    });
    expect(asRoot.stdout + asRoot.stderr).not.toContain(ROOT_KEY);
  });

  it('§4.8 setup: a local server that is down gets auto-start offered, started and attached; one that answers unhealthy never does', async () => {
    const h = homes();
    const probe = await startFakeOpenviking();
    const port = probe.port;
    await probe.close();
    const exe = await createFakeExecutable('openviking-server');
    cleanup.push(() => exe.close());
    // The launched server comes up in real time; the wizard's 60 s wait runs on the ManualClock,
    // which stands still from the "start" answer until the server listens (else, on a busy
    // machine, the clock raced through the whole wait before the fake process had started).
    let startChosen = false;
    let serverUp = false;
    exe.respondWith(async (run) => {
      const local = await startFakeOpenviking({ port: Number(run.argv[run.argv.indexOf('--port') + 1]) });
      cleanup.push(() => local.close());
      serverUp = true;
      return {};
    });
    const clock = new ManualClock(1_000_000);
    const running = wizard(
      h,
      [
        choose('Custom'),
        `http://127.0.0.1:${port}`,
        (q) => {
          startChosen = true;
          return (choose('Start local OpenViking') as (q: AskedQuestion) => string)(q);
        },
        choose('No API key'),
        choose('Keep in Hermes only'),
      ],
      { clock, env: { PATH: `${exe.dir}:/usr/bin:/bin` } },
    );
    let done = false;
    void running.finally(() => (done = true));
    await advanceUntil(clock, () => done, { maxClockMs: 60_000, hold: () => startChosen && !serverUp });
    const run = await running;
    expect(run.code).toBe(0);
    expect(exe.invocations[0]!.argv).toEqual(['--host', '127.0.0.1', '--port', String(port)]);
    expect(run.asked[2]!.message).toBe('Local OpenViking server is down');
    expect(run.stdout).toContain(
      `  Started openviking-server on 127.0.0.1:${port} in the background. Logs: ${path.join(h.home, 'logs', 'openviking-server.log')}\n  Waiting for OpenViking server to become reachable...\n  OpenViking server is reachable.\n`,
    );
    expect(run.stdout).toContain(
      '  Validating OpenViking local dev access...\n  OpenViking local dev access validated.\n',
    );
    expect(read(path.join(h.home, '.env'))).toBe(`OPENVIKING_ENDPOINT=http://127.0.0.1:${port}\n`);

    const sick = await startFakeOpenviking({ health: 'unhealthy' });
    cleanup.push(() => sick.close());
    const unhealthy = await wizard(h, [choose('Custom'), sick.url, choose('Cancel setup')], {
      env: { PATH: exe.dir },
    });
    expect(unhealthy.code).toBe(1);
    expect(unhealthy.asked.at(-1)).toMatchObject({ message: 'OpenViking server unhealthy' });
    expect(unhealthy.asked.at(-1)!.options!.map((o) => o.label)).toEqual(['Retry', 'Cancel setup']);
    expect(unhealthy.stdout).toContain('  OpenViking server responded but reported unhealthy status.\n');
    expect(exe.invocations).toHaveLength(1);
  });

  it('§4.8 setup: an invalid env-pointed profile is skipped with a warning and left untouched', async () => {
    const h = homes();
    const pointed = path.join(h.home, 'broken-ovcli.conf');
    fs.writeFileSync(pointed, '{"url": ');
    const run = await wizard(h, [PROMPT_CANCELLED], { env: { OPENVIKING_CLI_CONFIG_FILE: pointed } });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('No existing OpenViking CLI profiles found.');
    expect(run.stderr).toMatch(/Skipping invalid OpenViking CLI config .*broken-ovcli\.conf/);
    expect(read(pointed)).toBe('{"url": ');
  });

  it('without flags and without a terminal, setup says how to run it; flags never prompt', async () => {
    const h = homes();
    const plain = await runProviderCliCommand(openvikingCli, ['setup'], { home: h.home, env: h.env });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/Give --endpoint <url> or --profile <name\|path>, or run it on a terminal/);
    const p = scriptedPrompter([]);
    const flagged = await runProviderCliCommand(openvikingCli, ['setup', '--endpoint', 'localhost'], {
      home: h.home,
      env: h.env,
      prompter: p.prompter,
    });
    expect(flagged.code).toBe(0);
    expect(p.asked).toEqual([]);
    // `hermes-memory setup openviking` on a terminal runs the same wizard (the seam's setupWizard).
    const generic = scriptedPrompter([PROMPT_CANCELLED]);
    const { ctx } = providerCliTestContext(openvikingCli, { home: h.home, env: h.env });
    expect(await openvikingCli.setupWizard!(ctx, generic.prompter)).toBe(1);
    expect(generic.asked.map((q) => q.message)).toEqual(['OpenViking connection']);
  });
});
