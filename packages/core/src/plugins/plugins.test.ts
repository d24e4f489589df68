import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecordingLogger } from '../logging/logger';
import {
  discoverProviderPackages,
  listMemoryProviders,
  loadMemoryProvider,
  projectPluginsEnabled,
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
  // Project packages that are not providers.
  writePackage(
    path.join(nm, '@hermes-memory', 'core'),
    { name: '@hermes-memory/core', main: 'index.js' },
    { 'index.js': '' },
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
    expect(logger.records.some((r) => r.level === 'debug' && r.message.includes('boom at import'))).toBe(
      true,
    );
  });

  it('resolveMemoryProvider says why a provider could not be loaded', async () => {
    expect((await resolveMemoryProvider('nope', { cwd: cwd() })).status).toBe('not-found');
    expect((await resolveMemoryProvider('../evil', { cwd: cwd() })).status).toBe('not-found');
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
