import fs from 'node:fs';
import path from 'node:path';
import { createRecordingLogger } from '@hermes-memory/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openManager } from '../dist/index.js';
import { useAcmeProject } from './fixtures';
import { run, useTempHomes } from './helpers';

const project = useAcmeProject();
const home = useTempHomes();
afterEach(() => vi.unstubAllEnvs());

/** memory.secondary (tiered memory, decision 0130) as the CLI and the MCP server wire it. */
describe('memory.secondary', () => {
  it('status shows each secondary, read-only, with its health and the recall budget', () => {
    const h = home();
    const at = { cwd: project.cwd, env: { ACME_MODE: 'local' } };
    fs.writeFileSync(
      path.join(h, 'config.yaml'),
      'memory:\n  provider: ""\n  recall_budget_chars: 5000\n  secondary:\n    - provider: acme\n      prefetch_timeout_ms: 1500\n    - nosuch\n',
    );
    const status = JSON.parse(run(h, ['status', '--json'], at).stdout);
    expect(status.config.recallBudgetChars).toBe(5000);
    expect(status.secondary).toEqual([
      {
        name: 'acme',
        installed: true,
        available: true,
        health: expect.objectContaining({ status: expect.any(String) }),
        prefetchTimeoutMs: 1500,
        // What acme's CLI module says of itself: a secondary's module is consulted like the active one's.
        details: { mode: 'cloud' },
      },
      { name: 'nosuch', installed: false, available: false },
    ]);
    expect(status.stores.map((s: { name: string }) => s.name)).toContain('acme-notes.json');
    expect(status.providers.find((p: { name: string }) => p.name === 'acme')).toMatchObject({
      active: false,
      secondary: true,
    });
    const text = run(h, ['status'], at).stdout;
    expect(text).toMatch(/secondary {2}acme {2}available .*prefetch budget 1500 ms {2}\(read-only\)\n {13}mode: cloud\n/);
    expect(text).toMatch(/secondary {2}nosuch {2}not installed/);
    expect(text).toContain('recall budget 5,000 chars per turn across providers');
  });

  it("doctor runs a secondary's own checks (its CLI module), a missing secondary breaks nothing", () => {
    const h = home();
    const at = { cwd: project.cwd, env: { ACME_MODE: 'local' } };
    fs.writeFileSync(path.join(h, 'config.yaml'), 'memory:\n  provider: ""\n  secondary: [acme, nosuch]\n');
    const doctor = JSON.parse(run(h, ['doctor', '--json'], at).stdout);
    expect(doctor.checks.find((c: { id: string }) => c.id === 'acme.key')).toMatchObject({
      status: 'warn',
      detail: 'not set',
    });
    // Without memory.secondary, a remote provider that is not active is never consulted.
    fs.writeFileSync(path.join(h, 'config.yaml'), 'memory:\n  provider: ""\n');
    const plain = JSON.parse(run(h, ['doctor', '--json'], at).stdout);
    expect(plain.checks.some((c: { id: string }) => c.id.startsWith('acme.'))).toBe(false);
  });

  it('openManager joins available secondaries read-only and warns about the rest', async () => {
    const h = home();
    fs.writeFileSync(
      path.join(h, 'config.yaml'),
      'memory:\n  provider: ""\n  secondary: [acme, nosuch, builtin]\n',
    );
    // acme reads its availability from the process env, as plain plugin objects may.
    vi.stubEnv('ACME_MODE', 'local');
    const logger = createRecordingLogger();
    const opened = await openManager(h, {
      platform: 'cli',
      env: { ACME_MODE: 'local' },
      cwd: project.cwd,
      logger,
    });
    try {
      expect(opened.secondaries.map((p) => p.name)).toEqual(['acme']);
      expect(opened.external).toBeUndefined();
      expect(opened.manager.providerRole('acme')).toBe('secondary');
      const warnings = logger.records.filter((r) => r.level === 'warn').map((r) => r.message);
      expect(warnings).toContainEqual(
        "config.yaml: 'memory.secondary' cannot list 'builtin' (the built-in store is always on)",
      );
      expect(warnings.some((w) => w.startsWith("Secondary memory provider 'nosuch' could not be loaded; skipped"))).toBe(
        true,
      );
    } finally {
      await opened.manager.shutdownAll();
    }
  });
});

describe("setup keeps what a provider saved in its own file", () => {
  it('a value only in the native file survives --set of another key', () => {
    const h = home();
    const at = { cwd: project.cwd, env: { ACME_MODE: 'local' } };
    fs.writeFileSync(path.join(h, 'acme-settings.json'), JSON.stringify({ workspace: 'ops', top_k: 9 }));
    const r = run(h, ['setup', 'acme', '--set', 'mode=local', '--yes'], at);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('acme: workspace ops is ready');
    const config = fs.readFileSync(path.join(h, 'config.yaml'), 'utf8');
    expect(config).toMatch(/workspace: ops/);
    expect(config).toMatch(/top_k: 9/);
  });
});
