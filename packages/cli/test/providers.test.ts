import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { installProviderPackage, useAcmeProject } from './fixtures';
import { expectOneLineError, run, runInProcess, useTempHomes } from './helpers';

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
    expect(text).toMatch(/acme\s+available ✓\s+health unknown [^\n]*acme-memory\s+← active/);
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
    const dir = installProviderPackage(project.root, 'broken', {
      'index.js': 'throw new Error("boom at import");\n',
    });
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
      health: { status: 'down', reason: expect.stringContaining('boom at import') },
    });
    expect(status.provider.health).toMatchObject({ status: 'down' });
    // The human form says why once, not again on the health line (it printed the reason twice).
    const text = run(h, ['status'], { cwd: project.cwd }).stdout;
    expect(text.split('boom at import').length - 1).toBe(2); // the provider line, the package list
    expect(text).toMatch(/\n {13}health down since \d{4}-\d\d-\d\d \d\d:\d\d\n/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe("providers' CLI modules through the seam (built binary, decision 0603)", () => {
  const at = () => ({ cwd: project.cwd });
  const activeAcme = (h: string) =>
    fs.writeFileSync(
      path.join(h, 'config.yaml'),
      'memory:\n  provider: acme\n  acme:\n    mode: local\n    workspace: ops\n',
    );

  it('`hermes-memory acme …` runs the commands of a third-party package, with its settings', () => {
    const h = home();
    activeAcme(h);
    fs.writeFileSync(path.join(h, '.env'), 'ACME_WORKSPACE=ops-env\n', { mode: 0o600 });
    expect(run(h, ['acme', 'note', 'Ship on Fridays'], at())).toMatchObject({ code: 0, stdout: 'noted\n' });
    expect(JSON.parse(run(h, ['acme', 'note', 'Tests before merge', '--json'], at()).stdout)).toEqual({
      count: 2,
    });
    expect(JSON.parse(run(h, ['acme', 'whoami'], at()).stdout)).toEqual({ workspace: 'ops', env: 'ops-env' });
    const help = run(h, ['acme', '--help'], at()).stdout;
    expect(help).toContain('hermes-memory acme — Acme notes (acme-memory)');
    expect(help).toMatch(/note\s+add a note/);
    expect(run(h, ['help', 'acme', 'note'], at()).stdout).toBe('Usage: hermes-memory acme note <text>\n');
    expect(run(h, ['--help'], at()).stdout).toMatch(/\n\s+acme\s+acme-memory commands/);
    const bad = run(h, ['acme', 'note'], at());
    expectOneLineError(bad);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("'note' takes one <text>. See 'hermes-memory acme note --help'.");
    expectOneLineError(run(h, ['acme', 'frobnicate'], at()));
    // From a directory where acme is not installed, the provider config.yaml names is reported
    // missing, with where discovery looked (it said "Unknown command 'acme'", exit 2)...
    const elsewhere = run(h, ['acme', 'note', 'x']);
    expectOneLineError(elsewhere);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toMatch(
      /^hermes-memory: Memory provider 'acme' not found\. Install it .*Discovery searched /,
    );
    // ...while a name config.yaml does not hold is an unknown command.
    const typo = run(h, ['acmee', 'note', 'x']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("Unknown command 'acmee'");
  });

  it('status and doctor include the active provider; an inactive remote provider is left alone', () => {
    const h = home();
    activeAcme(h);
    run(h, ['acme', 'note', 'Ship on Fridays'], at());
    const status = JSON.parse(run(h, ['status', '--json'], at()).stdout);
    expect(status.provider.details).toEqual({ mode: 'local' });
    expect(status.stores.find((s: { name: string }) => s.name === 'acme-notes.json')).toMatchObject({
      exists: true,
      detail: '1 notes',
    });
    // holographic keeps its data in the home: listed although not active.
    expect(status.stores.some((s: { name: string }) => s.name === 'memory_store.db')).toBe(true);
    const doctor = JSON.parse(run(h, ['doctor', '--json'], at()).stdout);
    expect(doctor.checks.find((c: { id: string }) => c.id === 'acme.key')).toMatchObject({
      provider: 'acme',
      status: 'warn',
      fix: 'hermes-memory setup acme',
    });

    fs.writeFileSync(path.join(h, 'config.yaml'), 'memory:\n  provider: ""\n');
    const inactive = JSON.parse(run(h, ['status', '--json'], at()).stdout);
    expect(inactive.stores.some((s: { name: string }) => s.name === 'acme-notes.json')).toBe(false);
    expect(
      JSON.parse(run(h, ['doctor', '--json'], at()).stdout).checks.some(
        (c: { id: string }) => c.id === 'acme.key',
      ),
    ).toBe(false);
  });

  it('the CLI module of a provider that is neither active, named nor local is never imported', () => {
    const h = home();
    const imports = path.join(h, 'acme-imports.log');
    const env = { ...at(), env: { ACME_CLI_IMPORTS: imports } };
    fs.writeFileSync(path.join(h, 'config.yaml'), 'memory:\n  provider: ""\n');
    for (const argv of [['status', '--json'], ['doctor', '--json'], ['export'], ['--help']])
      run(h, argv, env);
    expect(fs.existsSync(imports)).toBe(false);
    run(h, ['export', '--provider', 'acme'], env); // named
    expect(fs.readFileSync(imports, 'utf8')).toBe('imported\n');
    activeAcme(h);
    run(h, ['status', '--json'], env); // active
    expect(fs.readFileSync(imports, 'utf8')).toBe('imported\nimported\n');
  });

  it('export and import carry provider records keyed by provider; refusals exit 1', () => {
    const a = home();
    activeAcme(a);
    run(a, ['acme', 'note', 'Ship on Fridays'], at());
    const exported = run(a, ['export'], at()).stdout;
    expect(exported).toContain('{"type":"record","provider":"acme","data":{"text":"Ship on Fridays"}}\n');

    // Not active: only with --provider.
    fs.writeFileSync(path.join(a, 'config.yaml'), 'memory:\n  provider: ""\n');
    expect(run(a, ['export'], at()).stdout).not.toContain('"provider":"acme"');
    expect(run(a, ['export', '--provider', 'acme'], at()).stdout).toBe(exported);
    expectOneLineError(run(a, ['export', '--provider', 'ghost'], at()));

    const b = home();
    const file = path.join(a, 'out.jsonl');
    fs.writeFileSync(
      file,
      exported.replace('\n', '\n{"type":"record","provider":"acme","data":{"text":"FORBIDDEN note"}}\n'),
    );
    const imported = run(b, ['import', file, '--json'], at());
    expect(imported.code).toBe(1);
    expect(JSON.parse(imported.stdout).providers.acme).toMatchObject({ inserted: 1, skipped: 0 });
    expect(JSON.parse(fs.readFileSync(path.join(b, 'acme-notes.json'), 'utf8'))).toEqual(['Ship on Fridays']);
    const text = run(b, ['import', file], at());
    expect(text.code).toBe(1);
    expect(text.stderr).toBe('hermes-memory: refused acme record: acme refuses that note\n');
  });

  it('import stops before writing anything when a provider is missing or rejects a record', () => {
    const h = home();
    const file = path.join(h, 'in.jsonl');
    const lines = (...records: object[]) =>
      fs.writeFileSync(
        file,
        [
          { type: 'hermes-memory-export', version: 2 },
          { type: 'memory', target: 'memory', content: 'Repo uses pnpm' },
          ...records,
        ]
          .map((r) => JSON.stringify(r))
          .join('\n'),
      );
    lines({ type: 'record', provider: 'ghost', data: { x: 1 } });
    const ghost = run(h, ['import', file], at());
    expectOneLineError(ghost);
    expect(ghost.stderr).toContain(
      "The export holds records of provider 'ghost': Memory provider 'ghost' not found.",
    );
    lines({ type: 'record', provider: 'acme', data: { text: 42 } });
    const invalid = run(h, ['import', file], at());
    expectOneLineError(invalid);
    expect(invalid.stderr).toContain('Record 3 (acme): a note needs text.');
    expect(fs.readdirSync(h)).toEqual(['in.jsonl']);
  });

  it("setup runs the provider's post-setup step after saving; its failure is exit 1 with the settings kept", () => {
    const h = home();
    const ok = run(h, ['setup', 'acme', '--set', 'mode=local', '--set', 'workspace=ops', '--yes'], at());
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^acme: workspace ops is ready\n✓ memory.provider: acme/);
    const failed = run(
      h,
      ['setup', 'acme', '--set', 'mode=local', '--set', 'workspace=unreachable', '--yes'],
      at(),
    );
    expectOneLineError(failed);
    expect(failed.stderr).toContain(
      "Settings saved, but the post-setup step of 'acme' failed: cannot reach acme.example",
    );
    expect(fs.readFileSync(path.join(h, 'config.yaml'), 'utf8')).toContain('workspace: unreachable');
  });

  it("status --json shows each provider's health; --probe checks the active backend, doctor always does", () => {
    const h = home();
    activeAcme(h);
    let status = JSON.parse(run(h, ['status', '--json'], at()).stdout);
    const health = (name: string) => status.providers.find((p: { name: string }) => p.name === name).health;
    // Nothing runs in a status process: unknown, unless the provider reports its own view.
    expect(health('acme')).toMatchObject({ status: 'unknown' });
    expect(health('holographic')).toMatchObject({ status: 'unknown' });
    expect(status.provider.health).toMatchObject({ status: 'unknown' });
    expect(status.provider.probe).toBeUndefined();
    status = JSON.parse(run(h, ['status', '--json'], { ...at(), env: { ACME_DOWN: '1' } }).stdout);
    expect(health('acme')).toEqual({
      status: 'down',
      reason: 'acme reports an outage',
      since: 1767261600000,
      consecutiveFailures: 1,
    });
    expect(run(h, ['status'], { ...at(), env: { ACME_DOWN: '1' } }).stdout).toMatch(
      /health down since \d{4}-\d\d-\d\d \d\d:\d\d — acme reports an outage/,
    );

    // The probe reaches the backend once; its outcome is the health.
    fs.writeFileSync(path.join(h, '.env'), 'ACME_API_KEY=sk-acme-bad\n', { mode: 0o600 });
    status = JSON.parse(run(h, ['status', '--probe', '--json'], at()).stdout);
    expect(status.provider.probe).toMatchObject({ status: 'failed', message: 'acme refused the key' });
    expect(status.provider.health).toMatchObject({
      status: 'degraded',
      reason: 'probe failed: acme refused the key',
    });
    expect(health('holographic')).toMatchObject({ status: 'unknown' }); // inactive: never probed
    let doctor = JSON.parse(run(h, ['doctor', '--json'], at()).stdout);
    expect(doctor.checks.find((c: { id: string }) => c.id === 'provider-probe')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('acme refused the key'),
      fix: expect.stringContaining('hermes-memory setup acme'),
    });

    fs.writeFileSync(path.join(h, '.env'), 'ACME_API_KEY=sk-acme-good\n', { mode: 0o600 });
    status = JSON.parse(run(h, ['status', '--probe', '--json'], at()).stdout);
    expect(status.provider.probe).toMatchObject({ status: 'ok', message: 'acme answered' });
    expect(status.provider.health).toMatchObject({ status: 'ok' });
    expect(run(h, ['status', '--probe'], at()).stdout).toMatch(/probe ok \(\d+ ms\): acme answered/);
    doctor = JSON.parse(run(h, ['doctor', '--json'], at()).stdout);
    expect(doctor.checks.find((c: { id: string }) => c.id === 'provider-probe')).toMatchObject({
      status: 'ok',
    });

    // A provider that fails to load is down, with the reason.
    fs.writeFileSync(path.join(h, 'config.yaml'), 'memory:\n  provider: nowhere\n');
    status = JSON.parse(run(h, ['status', '--json'], at()).stdout);
    expect(status.provider.health).toMatchObject({
      status: 'down',
      reason: expect.stringContaining("'nowhere' not found"),
    });
  });

  it('status says where discovery looked when it finds no provider (issue 20)', () => {
    const h = home();
    fs.writeFileSync(path.join(h, 'config.yaml'), 'memory:\n  provider: nowhere\n');
    const status = JSON.parse(run(h, ['status', '--json'], at()).stdout);
    expect(status.provider).toMatchObject({ name: 'nowhere', installed: false });
    expect(status.provider.reason).toContain('Discovery searched');
    expect(status.provider.reason).toContain(path.join(project.root, 'node_modules'));
    expect(status.discovery.pluginDirs).toEqual([
      { dir: path.join(h, 'plugins'), source: 'user', exists: false },
    ]);
    const doctor = JSON.parse(run(h, ['doctor', '--json'], at()).stdout);
    expect(doctor.checks.find((c: { id: string }) => c.id === 'provider').detail).toContain(
      `${path.join(h, 'plugins')} (does not exist)`,
    );
  });

  it("draws provider commands' progress bars on stderr when it is a terminal", async () => {
    const h = home();
    for (const fact of ['Carol runs the data team', 'The API uses gRPC'])
      expect(run(h, ['holographic', 'add', fact]).code).toBe(0);
    const { code, stdout, stderr } = await runInProcess(
      ['--home', h, '--no-color', 'holographic', 'reindex'],
      {
        env: { NO_COLOR: '1' },
        stderrIsTTY: true,
        cwd: h,
      },
    );
    expect(code).toBe(0);
    expect(stderr).toContain('\rReindexing facts ');
    expect(stderr).toContain('2/2 (100%)');
    expect(stdout).toContain('reindexed 2 facts (2 HRR vectors)');
  });
});
