import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../dist/index.js';
import { useAcmeProject } from './fixtures';
import { expectOneLineError, run, useTempHomes } from './helpers';

const project = useAcmeProject();
const home = useTempHomes();

describe('providers through core discovery (built binary)', () => {
  it('status lists installed providers, marks the active one, and checks its env vars', () => {
    const h = home();
    const at = { cwd: project.cwd };
    fs.writeFileSync(
      path.join(h, 'config.yaml'),
      'memory:\n  provider: acme\n  acme:\n    mode: cloud\n    workspace: ops\n',
    );
    fs.writeFileSync(path.join(h, '.env'), 'ACME_WORKSPACE=ops\n', { mode: 0o600 });
    let status = JSON.parse(run(h, ['status', '--json'], at).stdout);
    expect(status.provider).toMatchObject({ name: 'acme', installed: true, available: false });
    expect(status.provider.reason).toBe('ACME_API_KEY is not set');
    expect(status.provider.config).toMatchObject({ mode: 'cloud', workspace: 'ops' });
    expect(status.provider.envVars).toEqual([
      {
        name: 'ACME_API_KEY',
        field: 'api_key',
        secret: true,
        required: true,
        set: false,
        url: 'https://acme.example/keys',
      },
      { name: 'ACME_WORKSPACE', field: 'workspace', secret: false, required: false, set: true },
    ]);
    const names = status.providers.map((p: { name: string }) => p.name);
    expect(names).toEqual(expect.arrayContaining(['acme', 'holographic']));
    expect(names).not.toContain('builtin');
    expect(status.providers.find((p: { name: string }) => p.name === 'acme')).toMatchObject({
      active: true,
      packageName: 'acme-memory',
    });

    // A key in <home>/.env makes it available, as the agent would see it.
    fs.appendFileSync(path.join(h, '.env'), 'ACME_API_KEY=sk-acme-status-5555\n');
    status = JSON.parse(run(h, ['status', '--json'], at).stdout);
    expect(status.provider.available).toBe(true);
    expect(status.provider.envVars[0].set).toBe(true);
    const text = run(h, ['status'], at).stdout;
    expect(text).toMatch(/acme\s+available ✓\s+acme-memory\s+← active/);
    expect(text).toContain('✓ ACME_API_KEY');
    expect(text).toContain("don't inherit <home>/.env");
    expect(text).not.toContain('sk-acme-status');

    // Fields hidden by `when` (the API key in local mode) are not listed.
    fs.writeFileSync(path.join(h, 'config.yaml'), 'memory:\n  provider: acme\n  acme:\n    mode: local\n');
    status = JSON.parse(run(h, ['status', '--json'], at).stdout);
    expect(status.provider.envVars.map((v: { name: string }) => v.name)).toEqual(['ACME_WORKSPACE']);
  });

  it('setup --off turns the external provider off and touches nothing else', () => {
    const h = home();
    const at = { cwd: project.cwd };
    fs.writeFileSync(
      path.join(h, 'config.yaml'),
      '# my settings\nmodel: some-model\nmemory:\n  provider: acme\n  acme:\n    mode: local\n',
    );
    const before = fs.readFileSync(path.join(h, 'config.yaml'), 'utf8');
    const r = run(h, ['setup', '--off'], at);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Start a new session to activate.');
    const after = fs.readFileSync(path.join(h, 'config.yaml'), 'utf8');
    expect(after).toBe(before.replace('provider: acme', 'provider: ""'));
    expect(JSON.parse(run(h, ['status', '--json'], at).stdout).provider.name).toBe('');
    expectOneLineError(run(h, ['setup', 'acme', '--off'], at));
  });

  it('unknown and broken providers are one-line errors that say which', () => {
    const h = home();
    const unknown = run(h, ['setup', 'nope', '--yes'], { cwd: project.cwd });
    expectOneLineError(unknown);
    expect(unknown.stderr).toContain(
      "Memory provider 'nope' not found. Install it (npm install @hermes-memory/nope)",
    );
    const dir = path.join(project.root, 'node_modules', 'broken-memory');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({
        name: 'broken-memory',
        type: 'module',
        main: 'index.js',
        hermesMemory: { provider: 'broken' },
      }),
    );
    fs.writeFileSync(path.join(dir, 'index.js'), 'throw new Error("boom at import");\n');
    const broken = run(h, ['setup', 'broken', '--yes'], { cwd: project.cwd });
    expectOneLineError(broken);
    expect(broken.stderr).toContain("Memory provider 'broken' failed to load: boom at import");
    // status still works and shows the broken package as ✗.
    fs.writeFileSync(path.join(h, 'config.yaml'), 'memory:\n  provider: broken\n');
    const status = JSON.parse(run(h, ['status', '--json'], { cwd: project.cwd }).stdout);
    expect(status.provider).toMatchObject({ name: 'broken', installed: false, available: false });
    expect(status.provider.reason).toContain('boom at import');
    expect(status.providers.find((p: { name: string }) => p.name === 'broken')).toMatchObject({
      active: true,
    });
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('facts reindex / embed (built binary)', () => {
  it('rebuild vectors and embed pending facts, with --json', () => {
    const h = home();
    expect(JSON.parse(run(h, ['facts', 'reindex', '--json']).stdout)).toEqual({ facts: 0, vectors: 0 });
    expect(fs.existsSync(path.join(h, 'memory_store.db'))).toBe(false); // read-only on a fresh home
    for (const fact of [
      'Alice maintains the billing service',
      'Deploys happen on Tuesdays',
      'Bob owns payments',
    ])
      expect(run(h, ['facts', 'add', fact]).code).toBe(0);
    const re = run(h, ['facts', 'reindex', '--json']);
    expect(re.code).toBe(0);
    expect(JSON.parse(re.stdout)).toEqual({ facts: 3, vectors: 3 });
    expect(re.stderr).toBe(''); // no progress bar when stderr is not a terminal

    const first = JSON.parse(run(h, ['facts', 'embed', '--json', '--batch', '2']).stdout);
    expect(first).toMatchObject({ embedded: 3, pending: 0 });
    expect(first.model).toMatch(/\S/);
    // Idempotent: nothing left to embed.
    expect(JSON.parse(run(h, ['facts', 'embed', '--json']).stdout)).toMatchObject({
      embedded: 0,
      pending: 0,
    });
    // Search still finds facts after the rebuild.
    expect(JSON.parse(run(h, ['facts', 'search', 'billing', '--json']).stdout).count).toBeGreaterThan(0);
    expectOneLineError(run(h, ['facts', 'embed', '--batch', '0']));
  });

  it('draws progress bars on stderr when it is a terminal', async () => {
    const h = home();
    for (const fact of ['Carol runs the data team', 'The API uses gRPC'])
      expect(run(h, ['facts', 'add', fact]).code).toBe(0);
    const go = async (action: string) => {
      let stderr = '';
      let stdout = '';
      const code = await runCli(['--home', h, '--no-color', 'facts', action], {
        stdout: (t) => {
          stdout += t;
        },
        stderr: (t) => {
          stderr += t;
        },
        env: { NO_COLOR: '1' },
        stdoutIsTTY: false,
        stderrIsTTY: true,
        stdinIsTTY: false,
        cwd: h,
      });
      return { code, stdout, stderr };
    };
    const embed = await go('embed');
    expect(embed.code).toBe(0);
    expect(embed.stderr).toContain('\rEmbedding facts ');
    expect(embed.stderr).toContain('2/2 (100%)');
    expect(embed.stdout).toMatch(/embedded 2 facts/);
    const reindex = await go('reindex');
    expect(reindex.stderr).toContain('\rReindexing facts ');
    expect(reindex.stderr).toContain('2/2 (100%)');
    expect(reindex.stdout).toContain('reindexed 2 facts (2 HRR vectors)');
    expectOneLineError(run(h, ['facts', 'reindex', 'extra']));
  });
});
