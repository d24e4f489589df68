import fs from 'node:fs';
import path from 'node:path';
import { parseBoolean } from '../config/settings';

/** Scoped packages that are part of the project but are not memory providers. */
const NON_PROVIDER_IDS = new Set([
  'core',
  'testkit',
  'cli',
  'mcp',
  'ai-sdk',
  'bench',
  'embeddings',
  'provider-template',
  'quickstart',
]);

export const SCOPE = '@hermes-memory';

export interface ProviderPackage {
  /** Provider name (`memory.provider` value). */
  name: string;
  packageName: string;
  dir: string;
  /**
   * `scoped`: @hermes-memory/<name>; `package`: declares hermesMemory.provider; `user`:
   * <hermesHome>/plugins; `project`: <cwd>/.hermes/plugins (opt-in).
   */
  source: 'scoped' | 'package' | 'user' | 'project';
}

export interface DiscoveryOptions {
  /** Where resolution starts (node_modules of this dir and its parents). Default process.cwd(). */
  cwd?: string;
  /** Extra directories whose node_modules are searched too. */
  paths?: readonly string[];
  /** Also search `<hermesHome>/plugins/<dir>/package.json`. */
  hermesHome?: string;
  /**
   * Environment to read `HERMES_ENABLE_PROJECT_PLUGINS` from. When it is truthy ("1", "true",
   * "yes", "on"), `<cwd>/.hermes/plugins/<dir>/package.json` is searched too, after everything else.
   * Only this object is consulted (not process.env), so a host decides explicitly.
   */
  env?: Readonly<Record<string, string | undefined>>;
}

/** Project plugins run code from the working directory: only with an explicit opt-in. */
export function projectPluginsEnabled(
  env: Readonly<Record<string, string | undefined>> | undefined,
): boolean {
  return parseBoolean(env?.HERMES_ENABLE_PROJECT_PLUGINS) === true;
}

interface PackageJson {
  name?: unknown;
  hermesMemory?: unknown;
  exports?: unknown;
  module?: unknown;
  main?: unknown;
}

export function readPackageJson(dir: string): PackageJson | undefined {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as PackageJson) : undefined;
  } catch {
    return undefined;
  }
}

export function declaredProvider(pkg: PackageJson | undefined): string | undefined {
  const hm = pkg?.hermesMemory;
  if (typeof hm === 'object' && hm !== null) {
    const provider = (hm as Record<string, unknown>).provider;
    if (typeof provider === 'string' && provider.trim() !== '') return provider.trim();
  }
  return undefined;
}

/** node_modules folders from `start` up to the filesystem root, nearest first. */
export function nodeModulesChain(options: DiscoveryOptions): string[] {
  const out: string[] = [];
  const roots = [options.cwd ?? process.cwd(), ...(options.paths ?? [])];
  for (const root of roots) {
    let dir = path.resolve(root);
    while (true) {
      const nm = path.basename(dir) === 'node_modules' ? dir : path.join(dir, 'node_modules');
      if (!out.includes(nm) && isDir(nm)) out.push(nm);
      const parent = path.dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
  return out;
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function listDirs(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter(
        (e) => (e.isDirectory() || e.isSymbolicLink()) && !e.name.startsWith('.') && !e.name.startsWith('_'),
      )
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/** Package folders directly under a node_modules folder (scoped ones expanded). */
function packagesIn(nodeModules: string): string[] {
  const out: string[] = [];
  for (const entry of listDirs(nodeModules)) {
    if (entry.startsWith('@')) {
      for (const sub of listDirs(path.join(nodeModules, entry))) out.push(path.join(nodeModules, entry, sub));
    } else {
      out.push(path.join(nodeModules, entry));
    }
  }
  return out;
}

/**
 * Every installed provider package, without importing any. Order of precedence on a name clash:
 * the project's own `@hermes-memory/<name>` packages, then other installed packages declaring
 * `"hermesMemory": {"provider": "<name>"}`, then `<hermesHome>/plugins/*`, then — only when
 * `HERMES_ENABLE_PROJECT_PLUGINS` is truthy in `options.env` — `<cwd>/.hermes/plugins/*`.
 * The first wins, so a project folder can never shadow an installed or user provider.
 */
export function discoverProviderPackages(options: DiscoveryOptions = {}): ProviderPackage[] {
  const scoped: ProviderPackage[] = [];
  const declared: ProviderPackage[] = [];
  for (const nm of nodeModulesChain(options)) {
    for (const dir of packagesIn(nm)) {
      const pkg = readPackageJson(dir);
      const packageName = typeof pkg?.name === 'string' ? pkg.name : undefined;
      if (!packageName) continue;
      const provider = declaredProvider(pkg);
      if (packageName.startsWith(`${SCOPE}/`)) {
        const id = packageName.slice(SCOPE.length + 1);
        if (provider) scoped.push({ name: provider, packageName, dir, source: 'scoped' });
        else if (!NON_PROVIDER_IDS.has(id)) scoped.push({ name: id, packageName, dir, source: 'scoped' });
      } else if (provider) {
        declared.push({ name: provider, packageName, dir, source: 'package' });
      }
    }
  }
  const user = options.hermesHome ? pluginFolders(path.join(options.hermesHome, 'plugins'), 'user') : [];
  const project = projectPluginsEnabled(options.env)
    ? pluginFolders(path.join(path.resolve(options.cwd ?? process.cwd()), '.hermes', 'plugins'), 'project')
    : [];
  const seen = new Set<string>();
  const out: ProviderPackage[] = [];
  for (const p of [...scoped, ...declared, ...user, ...project]) {
    if (seen.has(p.name)) continue;
    seen.add(p.name);
    out.push(p);
  }
  return out;
}

/** Plugin folders (non-hidden, not "_"-prefixed) whose package.json declares a provider. */
function pluginFolders(pluginsDir: string, source: 'user' | 'project'): ProviderPackage[] {
  const out: ProviderPackage[] = [];
  for (const entry of listDirs(pluginsDir)) {
    const dir = path.join(pluginsDir, entry);
    const pkg = readPackageJson(dir);
    const provider = declaredProvider(pkg);
    if (provider) {
      out.push({
        name: provider,
        packageName: typeof pkg?.name === 'string' ? pkg.name : entry,
        dir,
        source,
      });
    }
  }
  return out;
}

/** Provider names that could be loaded, without importing anything. Sorted. */
export function listMemoryProviders(options: DiscoveryOptions = {}): string[] {
  return discoverProviderPackages(options)
    .map((p) => p.name)
    .sort();
}

/** The file a package's main entry resolves to for `import()` (exports → module → main → index.js). */
export function packageEntry(dir: string, pkg: PackageJson | undefined): string {
  const fromExports = pickExport(pkg?.exports);
  const rel =
    fromExports ??
    (typeof pkg?.module === 'string' ? pkg.module : undefined) ??
    (typeof pkg?.main === 'string' ? pkg.main : 'index.js');
  return path.resolve(dir, rel);
}

function pickExport(exportsField: unknown): string | undefined {
  if (typeof exportsField === 'string') return exportsField;
  if (typeof exportsField !== 'object' || exportsField === null) return undefined;
  const record = exportsField as Record<string, unknown>;
  const root =
    '.' in record ? record['.'] : Object.keys(record).some((k) => k.startsWith('.')) ? undefined : record;
  return pickCondition(root);
}

function pickCondition(node: unknown): string | undefined {
  if (typeof node === 'string') return node;
  if (Array.isArray(node)) {
    for (const item of node) {
      const found = pickCondition(item);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof node !== 'object' || node === null) return undefined;
  const record = node as Record<string, unknown>;
  for (const condition of ['import', 'node', 'default', 'require']) {
    if (condition in record) {
      const found = pickCondition(record[condition]);
      if (found && !found.endsWith('.d.ts') && !found.endsWith('.d.cts')) return found;
    }
  }
  return undefined;
}
