import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseBoolean } from '../config/settings';

/** First-party packages: on a name clash they win over third-party packages declaring the same id. */
export const SCOPE = '@hermes-memory';

export interface ProviderPackage {
  /** Provider name (`memory.provider` value), from `hermesMemory.provider`. */
  name: string;
  packageName: string;
  dir: string;
  /**
   * `scoped`: an @hermes-memory/* package; `package`: any other installed package; `user`:
   * <hermesHome>/plugins; `project`: <cwd>/.hermes/plugins (opt-in). All of them declare
   * `"hermesMemory": {"provider": "<name>"}` in package.json.
   */
  source: 'scoped' | 'package' | 'user' | 'project';
  /** The package's CLI module (`hermesMemory.cli`, a subpath such as "./cli"), when it has one. */
  cli?: string;
  /**
   * `hermesMemory.localData`: the provider keeps its data under HERMES_HOME, so the CLI's status,
   * doctor and export consult its CLI module even when it is not the active provider.
   */
  localData?: boolean;
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
  /**
   * Also search the node_modules folders around this copy of `@hermes-memory/core` (default true):
   * providers installed next to core are found whatever the working directory is.
   */
  besideCore?: boolean;
}

/** Where discovery looked, so a host can say why it found nothing. */
export interface DiscoverySearch {
  /** node_modules folders scanned, in precedence order. */
  nodeModules: string[];
  /** Plugin folders (`<hermesHome>/plugins`, `<cwd>/.hermes/plugins`) and whether they exist. */
  pluginDirs: Array<{ dir: string; source: 'user' | 'project'; exists: boolean }>;
  /** Whether `<cwd>/.hermes/plugins` was searched (HERMES_ENABLE_PROJECT_PLUGINS). */
  projectPlugins: boolean;
  /** Candidates that were not used, with the reason (no declaration, lost a name clash). */
  ignored: Array<{ dir: string; reason: string }>;
}

/** Project plugins run code from the working directory: only with an explicit opt-in. */
export function projectPluginsEnabled(
  env: Readonly<Record<string, string | undefined>> | undefined,
): boolean {
  return parseBoolean(env?.HERMES_ENABLE_PROJECT_PLUGINS) === true;
}

export interface PackageJson {
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

/**
 * The `hermesMemory` manifest of a package.json: the provider id, optionally its CLI subpath, and
 * whether its data lives under HERMES_HOME (read without importing the package).
 */
export interface ProviderManifest {
  provider: string;
  cli?: string;
  localData?: boolean;
}

/** A CLI subpath is relative to the package and stays inside it ("./cli", "./dist/cli.js"). */
const CLI_SUBPATH = /^\.\/(?!.*(?:^|\/)\.\.(?:\/|$))[\w@./-]+$/;

export function readManifest(pkg: PackageJson | undefined): ProviderManifest | undefined {
  const hm = pkg?.hermesMemory;
  if (typeof hm !== 'object' || hm === null) return undefined;
  const record = hm as Record<string, unknown>;
  const provider = typeof record.provider === 'string' ? record.provider.trim() : '';
  if (provider === '') return undefined;
  const cli = typeof record.cli === 'string' && CLI_SUBPATH.test(record.cli) ? record.cli : undefined;
  return { provider, ...(cli ? { cli } : {}), ...(record.localData === true ? { localData: true } : {}) };
}

export function declaredProvider(pkg: PackageJson | undefined): string | undefined {
  return readManifest(pkg)?.provider;
}

/** This copy of core's folder (dist/ or src/plugins/ under tests): its parents hold its neighbours. */
function coreInstallDir(): string {
  return path.dirname(fileURLToPath(import.meta.url));
}

/** node_modules folders from each search root up to the filesystem root, nearest first. */
export function nodeModulesChain(options: DiscoveryOptions): string[] {
  const out: string[] = [];
  const roots = [
    options.cwd ?? process.cwd(),
    ...(options.paths ?? []),
    ...(options.besideCore === false ? [] : [coreInstallDir()]),
  ];
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

function realpath(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
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

function providerPackage(
  manifest: ProviderManifest,
  packageName: string,
  dir: string,
  source: ProviderPackage['source'],
): ProviderPackage {
  return {
    name: manifest.provider,
    packageName,
    dir,
    source,
    ...(manifest.cli ? { cli: manifest.cli } : {}),
    ...(manifest.localData ? { localData: true } : {}),
  };
}

/**
 * Every installed provider package and where discovery looked, without importing anything. A
 * package is a provider when its package.json declares `"hermesMemory": {"provider": "<name>"}`.
 * Order of precedence on a name clash: @hermes-memory/* packages, then other installed packages,
 * then `<hermesHome>/plugins/*`, then — only when `HERMES_ENABLE_PROJECT_PLUGINS` is truthy in
 * `options.env` — `<cwd>/.hermes/plugins/*`. The first wins, so a project folder can never shadow
 * an installed or user provider.
 */
export function explainDiscovery(options: DiscoveryOptions = {}): {
  found: ProviderPackage[];
  search: DiscoverySearch;
} {
  const nodeModules = nodeModulesChain(options);
  const scoped: ProviderPackage[] = [];
  const declared: ProviderPackage[] = [];
  for (const nm of nodeModules) {
    for (const dir of packagesIn(nm)) {
      const pkg = readPackageJson(dir);
      const packageName = typeof pkg?.name === 'string' ? pkg.name : undefined;
      const manifest = readManifest(pkg);
      if (!packageName || !manifest) continue;
      if (packageName.startsWith(`${SCOPE}/`))
        scoped.push(providerPackage(manifest, packageName, dir, 'scoped'));
      else declared.push(providerPackage(manifest, packageName, dir, 'package'));
    }
  }
  const ignored: DiscoverySearch['ignored'] = [];
  const pluginDirs: DiscoverySearch['pluginDirs'] = [];
  const fromPlugins = (dir: string, source: 'user' | 'project') => {
    pluginDirs.push({ dir, source, exists: isDir(dir) });
    return pluginFolders(dir, source, ignored);
  };
  const user = options.hermesHome ? fromPlugins(path.join(options.hermesHome, 'plugins'), 'user') : [];
  const projectPlugins = projectPluginsEnabled(options.env);
  const project = projectPlugins
    ? fromPlugins(path.join(path.resolve(options.cwd ?? process.cwd()), '.hermes', 'plugins'), 'project')
    : [];
  const seen = new Map<string, ProviderPackage>();
  const found: ProviderPackage[] = [];
  for (const p of [...scoped, ...declared, ...user, ...project]) {
    const winner = seen.get(p.name);
    if (winner) {
      // The same package reached through two node_modules chains is not a clash.
      if (realpath(winner.dir) !== realpath(p.dir))
        ignored.push({ dir: p.dir, reason: `'${p.name}' is already provided by ${winner.packageName}` });
      continue;
    }
    seen.set(p.name, p);
    found.push(p);
  }
  return { found, search: { nodeModules, pluginDirs, projectPlugins, ignored } };
}

/** Every installed provider package, without importing any (see `explainDiscovery`). */
export function discoverProviderPackages(options: DiscoveryOptions = {}): ProviderPackage[] {
  return explainDiscovery(options).found;
}

/** Plugin folders (non-hidden, not "_"-prefixed) whose package.json declares a provider. */
function pluginFolders(
  pluginsDir: string,
  source: 'user' | 'project',
  ignored: DiscoverySearch['ignored'],
): ProviderPackage[] {
  const out: ProviderPackage[] = [];
  for (const entry of listDirs(pluginsDir)) {
    const dir = path.join(pluginsDir, entry);
    const pkg = readPackageJson(dir);
    const manifest = readManifest(pkg);
    if (manifest)
      out.push(providerPackage(manifest, typeof pkg?.name === 'string' ? pkg.name : entry, dir, source));
    else
      ignored.push({
        dir,
        reason: pkg
          ? 'its package.json declares no "hermesMemory": {"provider": …}'
          : 'it has no package.json',
      });
  }
  return out;
}

/**
 * Where discovery looked, in one line a person can act on: the node_modules folders, the plugin
 * folders (and whether they exist), whether project plugins were searched, and what was ignored.
 */
export function describeSearch(search: DiscoverySearch): string {
  const parts: string[] = [];
  parts.push(
    search.nodeModules.length > 0
      ? `searched ${search.nodeModules.join(', ')}`
      : 'found no node_modules folder above the working directory or @hermes-memory/core',
  );
  for (const p of search.pluginDirs) parts.push(`${p.dir}${p.exists ? '' : ' (does not exist)'}`);
  if (!search.projectPlugins)
    parts.push('not ./.hermes/plugins (set HERMES_ENABLE_PROJECT_PLUGINS=1 to search it)');
  const text = parts.join('; ');
  if (search.ignored.length === 0) return text;
  return `${text}; ignored ${search.ignored.map((i) => `${i.dir} (${i.reason})`).join(', ')}`;
}

/** Provider names that could be loaded, without importing anything. Sorted. */
export function listMemoryProviders(options: DiscoveryOptions = {}): string[] {
  return discoverProviderPackages(options)
    .map((p) => p.name)
    .sort();
}

/** The file a package's main entry resolves to for `import()` (exports → module → main → index.js). */
export function packageEntry(dir: string, pkg: PackageJson | undefined): string {
  const fromExports = pickExport(pkg?.exports, '.');
  const rel =
    fromExports ??
    (typeof pkg?.module === 'string' ? pkg.module : undefined) ??
    (typeof pkg?.main === 'string' ? pkg.main : 'index.js');
  return path.resolve(dir, rel);
}

/**
 * The file a package subpath (`./cli`) resolves to: its `exports` entry, else — for plain plugin
 * folders without an exports map — the path itself, relative to the package.
 */
export function packageSubpathEntry(dir: string, pkg: PackageJson | undefined, subpath: string): string {
  return path.resolve(dir, pickExport(pkg?.exports, subpath) ?? subpath);
}

function pickExport(exportsField: unknown, subpath: string): string | undefined {
  if (typeof exportsField === 'string') return subpath === '.' ? exportsField : undefined;
  if (typeof exportsField !== 'object' || exportsField === null) return undefined;
  const record = exportsField as Record<string, unknown>;
  const hasSubpaths = Object.keys(record).some((k) => k.startsWith('.'));
  if (!hasSubpaths) return subpath === '.' ? pickCondition(record) : undefined;
  return subpath in record ? pickCondition(record[subpath]) : undefined;
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
