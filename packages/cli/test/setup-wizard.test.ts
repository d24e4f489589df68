import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadEnvFile, loadHermesConfig } from '@hermes-memory/core';
import { type AskedQuestion, type ScriptedAnswer, scriptedPrompter } from '@hermes-memory/testkit';
import { describe, expect, it } from 'vitest';
// The BUILT package: the same wizard the binary runs, driven through its Prompter interface.
import { CANCELLED, type Prompter } from '../dist/index.js';
import { installProviderPackage, useAcmeProject } from './fixtures';
import { runInProcess, useTempHomes } from './helpers';

/** Keep whatever the prompt offers (the Enter key). */
const keep = (q: AskedQuestion) => q.initial ?? '';

const project = useAcmeProject();
const home = useTempHomes();

async function setup(h: string, argv: string[], script: ScriptedAnswer[]) {
  const p = scriptedPrompter(script);
  const r = await runInProcess(['--home', h, 'setup', ...argv], { cwd: project.cwd, prompter: p.prompter });
  expect(p.remaining).toEqual([]); // every scripted answer was asked for
  return { ...r, ...p };
}

describe('setup wizard (interactive, scripted prompter)', () => {
  it('picker lists installed providers with hints and pre-selects "Built-in only"', async () => {
    const h = home();
    const r = await setup(
      h,
      [],
      [
        (q) => {
          const labels = q.options?.map((o) => o.label) ?? [];
          expect(labels.at(-1)).toBe('Built-in only — MEMORY.md / USER.md (default)');
          expect(labels).toContain('acme');
          expect(labels).toContain('holographic');
          expect(labels).not.toContain('builtin');
          expect(q.options?.find((o) => o.value === 'acme')?.hint).toBe('API key / local');
          expect(q.initial).toBe('builtin');
          return keep(q);
        },
      ],
    );
    expect(r.code).toBe(0);
    expect(loadHermesConfig(h).memory.provider).toBe('');
    expect(fs.readFileSync(path.join(h, 'config.yaml'), 'utf8')).toMatch(/provider: ""/);
    expect(r.shown.at(-1)).toContain('Start a new session to activate.');
  });

  it('walks the schema: when hides fields, defaultFrom maps defaults, secrets go only to .env', async () => {
    const h = home();
    const r = await setup(
      h,
      [],
      [
        'acme',
        (q) => {
          expect(q).toMatchObject({ kind: 'select', message: 'Where Acme runs', initial: 'cloud' });
          return 'cloud';
        },
        (q) => {
          expect(q.kind).toBe('password'); // masked
          expect(q.message).toBe('Acme API key'); // nothing stored yet: no "blank to keep"
          expect(q.validate?.('')).toMatch(/required/);
          return 'sk-acme-new-secret-1234';
        },
        // endpoint is hidden (when: mode=local); region's default comes from mode via defaultFrom.
        (q) => {
          expect(q).toMatchObject({ kind: 'select', message: 'Region', initial: 'us' });
          return keep(q);
        },
        (q) => {
          expect(q).toMatchObject({ kind: 'text', message: 'Workspace', initial: 'main' });
          return 'team-blue';
        },
        (q) => {
          expect(q).toMatchObject({ kind: 'text', message: 'Results per recall', initial: '5' });
          expect(q.validate?.('0')).toMatch(/at least 1/);
          expect(q.validate?.('2.5')).toMatch(/integer/);
          return '12';
        },
      ],
    );
    expect(r.code).toBe(0);
    expect(r.asked.map((q) => q.message)).not.toContain('Local endpoint');
    expect(r.shown).toContain('note:api_key: get one at https://acme.example/keys');

    const config = loadHermesConfig(h);
    expect(config.memory.provider).toBe('acme');
    // Non-secrets went through the provider's own saveConfig; the key never reaches config.yaml.
    expect(config.memory.providerConfig('acme')).toEqual({
      mode: 'cloud',
      region: 'us',
      workspace: 'team-blue',
      top_k: 12,
    });
    expect(fs.readFileSync(path.join(h, 'config.yaml'), 'utf8')).not.toContain('sk-acme');
    // Secrets and env_var fields go to .env, mode 0600.
    expect(loadEnvFile(h)).toEqual({ ACME_API_KEY: 'sk-acme-new-secret-1234', ACME_WORKSPACE: 'team-blue' });
    expect(fs.statSync(path.join(h, '.env')).mode & 0o777).toBe(0o600);
    const outro = r.shown.at(-1) ?? '';
    expect(outro).toContain('Start a new session to activate.');
    expect(outro).toContain('ACME_API_KEY → .env');
    expect(outro).not.toContain('sk-acme');
    expect(r.stdout + r.stderr).not.toContain('sk-acme');
  });

  it('blank keeps an existing secret, showing only its last 4 characters', async () => {
    const h = home();
    fs.writeFileSync(path.join(h, '.env'), 'ACME_API_KEY=sk-acme-old-secret-9876\nOTHER=kept\n', {
      mode: 0o600,
    });
    const r = await setup(
      h,
      ['acme'],
      [
        'cloud',
        (q) => {
          expect(q.message).toBe('Acme API key (current …9876, blank to keep)');
          expect(q.message).not.toContain('old-secret');
          expect(q.validate?.('')).toBeUndefined(); // blank is fine: the key exists
          return '';
        },
        keep,
        keep,
        keep,
      ],
    );
    expect(r.code).toBe(0);
    expect(r.shown[0]).toBe('intro:hermes-memory setup acme'); // provider named: no picker
    expect(loadEnvFile(h)).toEqual({
      ACME_API_KEY: 'sk-acme-old-secret-9876',
      OTHER: 'kept',
      ACME_WORKSPACE: 'main',
    });
    expect(loadHermesConfig(h).memory.providerConfig('acme')).toEqual({
      mode: 'cloud',
      region: 'us',
      workspace: 'main',
      top_k: 5,
    });
  });

  it('a mapped default falls back to the static default, and the other branch of `when` shows', async () => {
    const h = home();
    const r = await setup(
      h,
      ['acme'],
      [
        'local',
        (q) => {
          expect(q).toMatchObject({
            kind: 'text',
            message: 'Local endpoint',
            initial: 'http://127.0.0.1:9000',
          });
          return keep(q);
        },
        (q) => {
          expect(q).toMatchObject({ message: 'Region', initial: 'eu' }); // no mapping for "local"
          return keep(q);
        },
        keep,
        keep,
      ],
    );
    expect(r.code).toBe(0);
    expect(r.asked.some((q) => q.kind === 'password')).toBe(false);
    expect(loadHermesConfig(h).memory.providerConfig('acme')).toMatchObject({
      mode: 'local',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu',
    });
    expect(loadEnvFile(h)).toEqual({ ACME_WORKSPACE: 'main' });
  });

  it('Cancel saves nothing, in the picker or half-way through the schema', async () => {
    const h = home();
    const inPicker = await setup(h, [], [CANCELLED]);
    expect(inPicker.code).toBe(1);
    expect(inPicker.shown.at(-1)).toBe('outro:Cancelled. No changes saved.');
    const midway = await setup(h, [], ['acme', 'cloud', 'sk-acme-never-saved-0000', CANCELLED]);
    expect(midway.code).toBe(1);
    expect(midway.shown.at(-1)).toBe('outro:Cancelled. No changes saved.');
    expect(fs.readdirSync(h)).toEqual([]); // no config.yaml, no .env
  });

  it('--yes and --off never ask, even with a prompter', async () => {
    const h = home();
    const r = await setup(h, ['acme', '--set', 'mode=local', '--yes'], []);
    expect(r.code).toBe(0);
    expect(loadHermesConfig(h).memory.provider).toBe('acme');
    const off = await setup(h, ['--off'], []);
    expect(off.code).toBe(0);
    expect(loadHermesConfig(h).memory.provider).toBe('');
    // --off changes memory.provider only: the provider's settings stay for next time.
    expect(loadHermesConfig(h).memory.providerConfig('acme')).toMatchObject({ mode: 'local' });
  });

  it("a provider's own commands get the same prompter (ctx.prompter); none under --json or without a terminal", async () => {
    const h = home();
    const ask = async (argv: string[], prompter?: Prompter) => {
      const { code, stdout } = await runInProcess(['--home', h, ...argv], {
        cwd: project.cwd,
        ...(prompter ? { prompter } : {}),
      });
      return { code, stdout };
    };
    const p = scriptedPrompter(['blue']);
    expect(await ask(['acme', 'ask'], p.prompter)).toEqual({ code: 0, stdout: 'colour blue\n' });
    expect(p.asked.map((q) => q.message)).toEqual(['Colour?']);
    const cancelled = scriptedPrompter([CANCELLED]);
    expect((await ask(['acme', 'ask'], cancelled.prompter)).stdout).toBe('cancelled\n');
    expect((await ask(['--json', 'acme', 'ask'], scriptedPrompter([]).prompter)).stdout).toBe(
      'no prompter\n',
    );
    expect((await ask(['acme', 'ask'])).stdout).toBe('no prompter\n');
  });

  it("a provider's own setupWizard replaces the schema walk; --set and --yes still walk the schema", async () => {
    // A second third-party package whose CLI module brings its own wizard (as OpenViking's does).
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-cli-zeta-'));
    try {
      installProviderPackage(root, 'zeta', {
        'index.js': `export function createProvider() {
  return { name: 'zeta', isAvailable: () => true, initialize() {}, getToolSchemas: () => [],
    getConfigSchema: () => [{ key: 'colour', description: 'Colour', default: 'red' }],
    saveConfig(values, home) { (globalThis.zetaSaved ??= []).push(values); } };
}
`,
        'cli.js': `export default { provider: 'zeta', summary: 'zeta',
  async setupWizard(ctx, prompter) {
    const answer = await prompter.text('Zeta colour?', {});
    if (typeof answer !== 'string') return 1;
    ctx.out('zeta wizard saved ' + answer + (ctx.prompter === prompter ? ' (same prompter)' : ''));
    return 0;
  } };
`,
      });
      const cwd = path.join(root, 'app');
      fs.mkdirSync(cwd);
      const h = home();
      const run = async (argv: string[], script: ScriptedAnswer[]) => {
        const p = scriptedPrompter(script);
        const { code, stdout } = await runInProcess(['--home', h, 'setup', ...argv], {
          cwd,
          prompter: p.prompter,
        });
        return { code, stdout, asked: p.asked.map((q) => q.message), remaining: p.remaining };
      };
      const own = await run(['zeta'], ['blue']);
      expect(own).toMatchObject({ code: 0, asked: ['Zeta colour?'], remaining: [] });
      expect(own.stdout).toBe('zeta wizard saved blue (same prompter)\n');
      expect((await run(['zeta'], [CANCELLED])).code).toBe(1);
      const flagged = await run(['zeta', '--set', 'colour=green'], [keep]);
      expect(flagged).toMatchObject({ code: 0, asked: ['Colour'] });
      expect((await run(['zeta', '--yes'], [])).asked).toEqual([]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
