import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecordingLogger } from '../logging/logger';
import { defineProviderCli, loadProviderCli, providerCliProblem } from '../provider-cli';
import {
  describeSearch,
  discoverProviderPackages,
  explainDiscovery,
  listMemoryProviders,
  loadMemoryProvider,
  projectPluginsEnabled,
  readManifest,
  resolveMemoryProvider,
} from './index';

let root: string;
let home: string;

/** A provider object in module source form: structural, so the fake package needs no dependency. */
const providerSource = (name: string, tag: string) =>
  `{ name: ${JSON.stringify(name)}, tag: ${JSON.stringify(tag)}, settings, isAvailable() { return true; }, initialize() {}, getToolSchemas() { return []; } }`;

function writePackage(dir: string, pkg: Record<string, unknown>, files: Record<string, string>): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(pkg));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
}

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-plugins-'));
  home = path.join(root, 'home');
  const nm = path.join(root, 'project', 'node_modules');
  // Scoped ESM package with conditional exports and a createProvider export.
  writePackage(
    path.join(nm, '@hermes-memory', 'alpha'),
    {
      name: '@hermes-memory/alpha',
      type: 'module',
      hermesMemory: { provider: 'alpha' },
      exports: {
        '.': {
          import: { types: './dist/index.d.ts', default: './dist/index.js' },
          require: './dist/index.cjs',
        },
      },
    },
    {
      'dist/index.js': `export function createProvider(settings) { return ${providerSource('alpha', 'scoped')}; }`,
    },
  );
  // Packages that declare no provider are not providers, whatever their scope or exports.
  writePackage(
    path.join(nm, '@hermes-memory', 'core'),
    { name: '@hermes-memory/core', main: 'index.js' },
    { 'index.js': '' },
  );
  writePackage(
    path.join(nm, '@hermes-memory', 'undeclared'),
    { name: '@hermes-memory/undeclared', type: 'module', main: 'index.js' },
    {
      'index.js': `export function createProvider(settings) { return ${providerSource('undeclared', 'x')}; }`,
    },
  );
  writePackage(
    path.join(nm, 'left-pad'),
    { name: 'left-pad', main: 'index.js' },
    { 'index.js': 'module.exports = 1;' },
  );
  // A third-party CommonJS package found through its package.json declaration; create*Provider export.
  writePackage(
    path.join(nm, 'acme-memory'),
    { name: 'acme-memory', main: 'lib/main.js', hermesMemory: { provider: 'acme' } },
    {
      'lib/main.js': `exports.createAcmeProvider = function (settings) { return ${providerSource('acme', 'cjs')}; };`,
    },
  );
  // Clash: a third-party package claims "alpha" too; the scoped package must win.
  writePackage(
    path.join(nm, 'alpha-impostor'),
    { name: 'alpha-impostor', type: 'module', main: 'index.js', hermesMemory: { provider: 'alpha' } },
    { 'index.js': `export default function (settings) { return ${providerSource('alpha', 'impostor')}; }` },
  );
  // A default-exported class.
  writePackage(
    path.join(nm, '@someone', 'gamma'),
    { name: '@someone/gamma', type: 'module', main: 'index.js', hermesMemory: { provider: 'gamma' } },
    {
      'index.js': `export default class Gamma { constructor(settings) { this.settings = settings; this.name = 'gamma'; } isAvailable() { return true; } initialize() {} getToolSchemas() { return []; } }`,
    },
  );
  // A package that declares a provider but exports nothing usable.
  writePackage(
    path.join(nm, 'broken-memory'),
    { name: 'broken-memory', type: 'module', main: 'index.js', hermesMemory: { provider: 'broken' } },
    { 'index.js': 'export const nothing = 1;' },
  );
  // A package whose import throws.
  writePackage(
    path.join(nm, 'throws-memory'),
    { name: 'throws-memory', type: 'module', main: 'index.js', hermesMemory: { provider: 'throws' } },
    { 'index.js': 'throw new Error("boom at import");' },
  );
  // A user plugin under <hermesHome>/plugins.
  writePackage(
    path.join(home, 'plugins', 'delta'),
    { name: 'delta-plugin', type: 'module', main: 'index.js', hermesMemory: { provider: 'delta' } },
    { 'index.js': `export const createDeltaProvider = (settings) => (${providerSource('delta', 'user')});` },
  );
  // A user plugin folder without a declaration is ignored.
  writePackage(path.join(home, 'plugins', 'notes'), { name: 'notes' }, { 'index.js': '' });
  // Project plugins under <cwd>/.hermes/plugins: one new provider, two that clash with earlier sources.
  const projectPlugins = path.join(root, 'project', 'src', '.hermes', 'plugins');
  writePackage(
    path.join(projectPlugins, 'epsilon'),
    { name: 'epsilon-plugin', type: 'module', main: 'index.js', hermesMemory: { provider: 'epsilon' } },
    { 'index.js': `export const createProvider = (settings) => (${providerSource('epsilon', 'project')});` },
  );
  writePackage(
    path.join(projectPlugins, 'delta-shadow'),
    { name: 'delta-shadow', type: 'module', main: 'index.js', hermesMemory: { provider: 'delta' } },
    { 'index.js': `export const createProvider = (settings) => (${providerSource('delta', 'project')});` },
  );
  writePackage(
    path.join(projectPlugins, 'alpha-shadow'),
    { name: 'alpha-shadow', type: 'module', main: 'index.js', hermesMemory: { provider: 'alpha' } },
    { 'index.js': `export const createProvider = (settings) => (${providerSource('alpha', 'project')});` },
  );
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const cwd = () => path.join(root, 'project', 'src');

describe('listMemoryProviders', () => {
  it('lists provider names without importing, once each, excluding non-provider packages', () => {
    fs.mkdirSync(cwd(), { recursive: true });
    expect(listMemoryProviders({ cwd: cwd(), hermesHome: home })).toEqual([
      'acme',
      'alpha',
      'broken',
      'delta',
      'gamma',
      'throws',
    ]);
    expect(listMemoryProviders({ cwd: cwd() })).not.toContain('delta');
  });
});

describe('loadMemoryProvider', () => {
  it('loads the scoped package, which wins over a same-named third-party package', async () => {
    const p = (await loadMemoryProvider('alpha', { cwd: cwd(), settings: { k: 1 } })) as unknown as Record<
      string,
      unknown
    >;
    expect(p.name).toBe('alpha');
    expect(p.tag).toBe('scoped');
    expect(p.settings).toEqual({ k: 1 });
  });
  it('loads a CommonJS package through its create*Provider export', async () => {
    const p = (await loadMemoryProvider('acme', { cwd: cwd() })) as unknown as Record<string, unknown>;
    expect(p.tag).toBe('cjs');
  });
  it('instantiates a default-exported class', async () => {
    const p = await loadMemoryProvider('gamma', { cwd: cwd(), settings: { x: 2 } });
    expect(p?.name).toBe('gamma');
    expect((p as unknown as { settings: unknown }).settings).toEqual({ x: 2 });
  });
  it('finds user plugins under <hermesHome>/plugins', async () => {
    const p = (await loadMemoryProvider('delta', { cwd: cwd(), hermesHome: home })) as unknown as Record<
      string,
      unknown
    >;
    expect(p.tag).toBe('user');
  });
  it('returns null for unknown names, invalid names, unusable and failing packages (logged at DEBUG)', async () => {
    const logger = createRecordingLogger();
    expect(await loadMemoryProvider('nope', { cwd: cwd(), logger })).toBeNull();
    expect(await loadMemoryProvider('../evil', { cwd: cwd(), logger })).toBeNull();
    expect(await loadMemoryProvider('broken', { cwd: cwd(), logger })).toBeNull();
    expect(await loadMemoryProvider('throws', { cwd: cwd(), logger })).toBeNull();
    expect(await loadMemoryProvider('core', { cwd: cwd(), logger })).toBeNull();
    expect(await loadMemoryProvider('undeclared', { cwd: cwd(), logger })).toBeNull();
    expect(logger.records.some((r) => r.level === 'warn' && r.message.includes('boom at import'))).toBe(true);
  });

  it('says at WARN where it looked when a provider is not found (issue 20)', async () => {
    const logger = createRecordingLogger();
    expect(await loadMemoryProvider('nope', { cwd: cwd(), hermesHome: home, logger })).toBeNull();
    const warning = logger.records.find((r) => r.level === 'warn')?.message ?? '';
    expect(warning).toContain("Memory provider 'nope' not found: searched ");
    expect(warning).toContain(path.join(root, 'project', 'node_modules'));
    expect(warning).toContain(path.join(home, 'plugins'));
    expect(warning).toContain('HERMES_ENABLE_PROJECT_PLUGINS');
    // The user plugin folder without a declaration is named, with the reason.
    expect(warning).toContain(`${path.join(home, 'plugins', 'notes')} (its package.json declares no`);
  });

  it('resolveMemoryProvider says why a provider could not be loaded', async () => {
    expect((await resolveMemoryProvider('nope', { cwd: cwd() })).status).toBe('not-found');
    expect((await resolveMemoryProvider('../evil', { cwd: cwd() })).status).toBe('invalid-name');
    expect(await resolveMemoryProvider('broken', { cwd: cwd() })).toEqual({
      status: 'no-factory',
      packageName: 'broken-memory',
    });
    const failed = await resolveMemoryProvider('throws', { cwd: cwd() });
    expect(failed.status).toBe('failed');
    expect(failed.status === 'failed' && String(failed.error)).toContain('boom at import');
    const loaded = await resolveMemoryProvider('acme', { cwd: cwd() });
    expect(loaded.status === 'loaded' && loaded.provider.name).toBe('acme');
  });
});

describe('project plugins (checklist 100)', () => {
  it('are ignored unless HERMES_ENABLE_PROJECT_PLUGINS is truthy in the env passed in', async () => {
    fs.mkdirSync(cwd(), { recursive: true });
    expect(listMemoryProviders({ cwd: cwd(), hermesHome: home })).not.toContain('epsilon');
    expect(listMemoryProviders({ cwd: cwd(), env: { HERMES_ENABLE_PROJECT_PLUGINS: '0' } })).not.toContain(
      'epsilon',
    );
    expect(await loadMemoryProvider('epsilon', { cwd: cwd() })).toBeNull();
    const env = { HERMES_ENABLE_PROJECT_PLUGINS: 'true' };
    expect(listMemoryProviders({ cwd: cwd(), env })).toContain('epsilon');
    const p = (await loadMemoryProvider('epsilon', { cwd: cwd(), env })) as unknown as Record<
      string,
      unknown
    >;
    expect(p.tag).toBe('project');
  });

  it('come after scoped, installed and user plugins: the first source wins a clash', async () => {
    const env = { HERMES_ENABLE_PROJECT_PLUGINS: '1' };
    const found = discoverProviderPackages({ cwd: cwd(), hermesHome: home, env });
    expect(found.filter((p) => p.name === 'delta')).toHaveLength(1);
    expect(found.find((p) => p.name === 'delta')?.source).toBe('user');
    expect(found.find((p) => p.name === 'alpha')?.source).toBe('scoped');
    expect(found.find((p) => p.name === 'epsilon')?.source).toBe('project');
    const delta = (await loadMemoryProvider('delta', {
      cwd: cwd(),
      hermesHome: home,
      env,
    })) as unknown as Record<string, unknown>;
    expect(delta.tag).toBe('user');
    // Without the user plugin dir, the project folder provides delta.
    const fallback = (await loadMemoryProvider('delta', { cwd: cwd(), env })) as unknown as Record<
      string,
      unknown
    >;
    expect(fallback.tag).toBe('project');
  });

  it('projectPluginsEnabled accepts the usual truthy spellings only', () => {
    for (const v of ['1', 'true', 'TRUE', 'yes', 'on', ' on ']) {
      expect(projectPluginsEnabled({ HERMES_ENABLE_PROJECT_PLUGINS: v })).toBe(true);
    }
    for (const v of [undefined, '', '0', 'false', 'no', 'off', 'maybe']) {
      expect(projectPluginsEnabled({ HERMES_ENABLE_PROJECT_PLUGINS: v })).toBe(false);
    }
    expect(projectPluginsEnabled(undefined)).toBe(false);
  });
});

describe('explainDiscovery (issue 20: why nothing was found)', () => {
  it('reports the node_modules and plugin folders searched, and what it ignored', () => {
    fs.mkdirSync(cwd(), { recursive: true });
    const { found, search } = explainDiscovery({ cwd: cwd(), hermesHome: home, besideCore: false });
    expect(found.map((p) => p.name)).toContain('alpha');
    expect(search.nodeModules[0]).toBe(path.join(root, 'project', 'node_modules'));
    expect(search.pluginDirs).toEqual([{ dir: path.join(home, 'plugins'), source: 'user', exists: true }]);
    expect(search.projectPlugins).toBe(false);
    // The impostor lost the name clash to the scoped package; the folder without a declaration is named.
    expect(search.ignored).toEqual(
      expect.arrayContaining([
        {
          dir: path.join(root, 'project', 'node_modules', 'alpha-impostor'),
          reason: expect.stringContaining("'alpha' is already provided by @hermes-memory/alpha"),
        },
        { dir: path.join(home, 'plugins', 'notes'), reason: expect.stringContaining('declares no') },
      ]),
    );
    const text = describeSearch(search);
    expect(text).toMatch(/^searched /);
    expect(text).toContain('set HERMES_ENABLE_PROJECT_PLUGINS=1');
  });

  it('a missing plugins folder and an empty search are said plainly', () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-plugins-empty-'));
    try {
      const { found, search } = explainDiscovery({
        cwd: empty,
        hermesHome: path.join(empty, 'home'),
        besideCore: false,
        env: { HERMES_ENABLE_PROJECT_PLUGINS: '1' },
      });
      expect(found).toEqual([]);
      const text = describeSearch(search);
      expect(text).toContain(`${path.join(empty, 'home', 'plugins')} (does not exist)`);
      expect(text).toContain(`${path.join(empty, '.hermes', 'plugins')} (does not exist)`);
      expect(text).not.toContain('HERMES_ENABLE_PROJECT_PLUGINS');
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  it('also searches beside this copy of core, so the working directory does not decide', () => {
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-plugins-cwd-'));
    try {
      const near = explainDiscovery({ cwd: elsewhere }).search.nodeModules;
      const repoNodeModules = path.resolve(__dirname, '..', '..', 'node_modules');
      expect(near).toContain(repoNodeModules);
      expect(explainDiscovery({ cwd: elsewhere, besideCore: false }).search.nodeModules).not.toContain(
        repoNodeModules,
      );
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});

describe('provider CLI modules (hermesMemory.cli)', () => {
  const cliRoot = () => path.join(root, 'cli-project');
  const cliModule = (provider: string, extra = '') =>
    `export default { provider: ${JSON.stringify(provider)}, summary: 'Acme notes', commands: [{ name: 'ping', summary: 'p', usage: 'u', run: async () => 0 }]${extra} };`;

  beforeAll(() => {
    const nm = path.join(cliRoot(), 'node_modules');
    writePackage(
      path.join(nm, 'acme-cli'),
      {
        name: 'acme-cli',
        type: 'module',
        main: 'index.js',
        exports: { '.': './index.js', './cli': { import: './cli.js', require: './cli.cjs' } },
        hermesMemory: { provider: 'acme', cli: './cli' },
      },
      { 'index.js': 'throw new Error("the provider entry must not load");', 'cli.js': cliModule('acme') },
    );
    writePackage(
      path.join(nm, 'wrong-cli'),
      {
        name: 'wrong-cli',
        type: 'module',
        main: 'index.js',
        hermesMemory: { provider: 'wrong', cli: './cli.js' },
      },
      { 'cli.js': cliModule('someone-else') },
    );
    writePackage(
      path.join(nm, 'half-cli'),
      {
        name: 'half-cli',
        type: 'module',
        main: 'index.js',
        hermesMemory: { provider: 'half', cli: './cli.js' },
      },
      { 'cli.js': cliModule('half', ', exportRecords() { return []; }') },
    );
    writePackage(
      path.join(nm, 'escape-cli'),
      { name: 'escape-cli', main: 'index.js', hermesMemory: { provider: 'escape', cli: '../../evil.js' } },
      {},
    );
  });

  const find = (name: string) =>
    discoverProviderPackages({ cwd: cliRoot(), besideCore: false }).find((p) => p.name === name)!;

  it('reads the cli subpath from the manifest, and refuses one that leaves the package', () => {
    expect(find('acme').cli).toBe('./cli');
    expect(find('escape').cli).toBeUndefined();
    expect(readManifest({ hermesMemory: { provider: ' x ', cli: './dist/cli.js' } })).toEqual({
      provider: 'x',
      cli: './dist/cli.js',
    });
    expect(readManifest({ hermesMemory: { provider: '' } })).toBeUndefined();
  });

  it('reads localData from the manifest (only a literal true), so the CLI knows without importing', () => {
    expect(readManifest({ hermesMemory: { provider: 'x', cli: './cli', localData: true } })).toEqual({
      provider: 'x',
      cli: './cli',
      localData: true,
    });
    expect(readManifest({ hermesMemory: { provider: 'x', localData: 'yes' } })).toEqual({ provider: 'x' });
    expect(find('acme').localData).toBeUndefined();
  });

  it('loads the module through the exports map without importing the provider entry', async () => {
    const result = await loadProviderCli(find('acme'));
    expect(result.status).toBe('loaded');
    expect(result.status === 'loaded' && result.module.commands?.map((c) => c.name)).toEqual(['ping']);
    expect(await loadProviderCli(find('escape'))).toEqual({ status: 'none' });
  });

  it('refuses a module for another provider, or with export but no import', async () => {
    const wrong = await loadProviderCli(find('wrong'));
    expect(wrong.status === 'failed' && String(wrong.error)).toContain("is for 'someone-else', not 'wrong'");
    const half = await loadProviderCli(find('half'));
    expect(half.status === 'failed' && String(half.error)).toContain(
      'exportRecords and importRecords together',
    );
  });

  it('providerCliProblem checks the shape structurally', () => {
    expect(providerCliProblem(null)).toContain('exports no object');
    expect(providerCliProblem({ provider: 'a', summary: 's', status: 1 })).toContain(
      'status is not a function',
    );
    expect(
      providerCliProblem({
        provider: 'a',
        summary: 's',
        commands: [
          { name: 'x', summary: '', usage: '', run() {} },
          { name: 'x', summary: '', usage: '', run() {} },
        ],
      }),
    ).toContain("'x' is listed twice");
    expect(providerCliProblem({ provider: 'a', summary: 's', commands: [{ name: 'Bad Name' }] })).toContain(
      'valid name',
    );
    const ok = defineProviderCli({ provider: 'a', summary: 's' });
    expect(providerCliProblem(ok, 'a')).toBeUndefined();
  });
});
