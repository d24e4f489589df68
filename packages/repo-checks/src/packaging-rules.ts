/**
 * The rules every public package follows, so what we publish works for a stranger who installs it
 * alone with npm: links that lead back here, a `files` list that matches the folder, README links
 * that work on npmjs.com, declarations whose imports resolve from the consumer's install, and peer
 * ranges that follow the versioning policy (docs/decisions/0003-versioning-policy.md).
 *
 * `manifestProblems` needs only the source tree; `buildProblems` reads `dist/` (run the build first).
 */
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import semver from 'semver';
import { type WorkspacePackage, packageLinks } from './workspace';

const INTERNAL = '@hermes-memory/';
const DEPENDENCY_FIELDS = ['dependencies', 'peerDependencies', 'optionalDependencies'] as const;

type Manifest = Record<string, unknown> & {
  name: string;
  version: string;
  files?: unknown;
  exports?: unknown;
  bin?: unknown;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};

function manifestOf(pkg: WorkspacePackage): Manifest {
  return pkg.manifest as Manifest;
}

/** Every string leaf of an `exports` map, with the condition path that leads to it. */
export function exportTargets(exportsField: unknown, at = ''): { at: string; target: string }[] {
  if (typeof exportsField === 'string') return [{ at: at || '.', target: exportsField }];
  if (exportsField === null || typeof exportsField !== 'object') return [];
  return Object.entries(exportsField as Record<string, unknown>).flatMap(([key, value]) =>
    exportTargets(value, at ? `${at} → ${key}` : key),
  );
}

/** Conditional objects in `exports` whose `types` condition is present but not first. */
function typesNotFirst(exportsField: unknown, at = ''): string[] {
  if (exportsField === null || typeof exportsField !== 'object') return [];
  const entries = Object.entries(exportsField as Record<string, unknown>);
  const own = entries.some(([k], i) => k === 'types' && i > 0) ? [at || '.'] : [];
  return [...own, ...entries.flatMap(([k, v]) => typesNotFirst(v, at ? `${at} → ${k}` : k))];
}

/** Markdown and HTML link targets in a README that are not absolute (they break on npmjs.com). */
export function relativeLinks(markdown: string): string[] {
  const withoutCode = markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  const targets = [
    ...[...withoutCode.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!),
    ...[...withoutCode.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1]!),
    ...[...withoutCode.matchAll(/\b(?:href|src)\s*=\s*["']([^"']+)["']/g)].map((m) => m[1]!),
  ];
  return targets.filter((t) => !/^(https?:|mailto:|#)/.test(t));
}

/**
 * The peer range policy for one internal peer: `workspace:` plus a range that accepts the current
 * version and the next minor (a minor never cascades) but not the next major (a breaking release does).
 */
export function peerRangeProblem(spec: string, current: string): string | null {
  if (!spec.startsWith('workspace:')) return `'${spec}' should be a workspace: range`;
  const range = spec.slice('workspace:'.length);
  if (!semver.validRange(range))
    return `'${spec}' is not a semver range (use e.g. 'workspace:>=0.1.0 <1.0.0')`;
  const minor = semver.inc(current, 'minor')!;
  const major = semver.inc(current, 'major')!;
  if (!semver.satisfies(current, range)) return `'${range}' excludes the current version ${current}`;
  if (!semver.satisfies(minor, range))
    return `'${range}' excludes the next minor ${minor}: a minor would cascade`;
  if (semver.satisfies(major, range)) return `'${range}' accepts the next major ${major}: it must not`;
  return null;
}

/** Problems found from package.json, README and the source tree alone. */
export function manifestProblems(pkg: WorkspacePackage, workspace: readonly WorkspacePackage[]): string[] {
  const m = manifestOf(pkg);
  const problems: string[] = [];
  const expected = packageLinks(pkg.rel);
  for (const key of ['repository', 'homepage', 'bugs'] as const) {
    if (JSON.stringify(m[key]) !== JSON.stringify(expected[key])) {
      problems.push(`${key} should be ${JSON.stringify(expected[key])}, is ${JSON.stringify(m[key])}`);
    }
  }
  if (m['license'] !== 'MIT') problems.push(`license should be "MIT", is ${JSON.stringify(m['license'])}`);
  if (!fs.existsSync(path.join(pkg.dir, 'LICENSE'))) problems.push('LICENSE file missing');
  if (typeof m['description'] !== 'string' || m['description'] === '') problems.push('description missing');
  if (!semver.valid(m.version)) problems.push(`version '${m.version}' is not semver`);
  if (JSON.stringify(m['engines']) !== JSON.stringify({ node: '>=20' }))
    problems.push('engines should be {"node": ">=20"}');
  if (JSON.stringify(m['publishConfig']) !== JSON.stringify({ access: 'public' })) {
    problems.push('publishConfig should be {"access": "public"}');
  }

  if (!Array.isArray(m.files) || m.files.length === 0) problems.push('files must list what is published');
  else {
    for (const entry of m.files as unknown[]) {
      if (typeof entry !== 'string' || /[*?{}[\]!]/.test(entry)) {
        problems.push(`files entry ${JSON.stringify(entry)}: use plain paths`);
      } else if (entry !== 'dist' && !fs.existsSync(path.join(pkg.dir, entry))) {
        problems.push(`files lists ${entry}, which does not exist`);
      }
    }
    for (const required of ['dist', 'README.md', 'CHANGELOG.md', 'LICENSE']) {
      if (!(m.files as unknown[]).includes(required)) problems.push(`files should list ${required}`);
    }
  }

  const readme = path.join(pkg.dir, 'README.md');
  if (!fs.existsSync(readme)) problems.push('README.md missing');
  else {
    for (const link of relativeLinks(fs.readFileSync(readme, 'utf8'))) {
      problems.push(`README link '${link}' is relative: it breaks on npm (use a https://github.com/… URL)`);
    }
  }

  for (const file of sourceFiles(path.join(pkg.dir, 'src'))) {
    const text = fs.readFileSync(path.join(pkg.dir, 'src', file), 'utf8');
    if (text.includes(`'${m.version}'`) || text.includes(`"${m.version}"`)) {
      problems.push(
        `src/${file} spells the version '${m.version}': use __PACKAGE_VERSION__ (tsup.preset.ts)`,
      );
    }
  }

  problems.push(...providerManifestProblems(pkg));

  const versions = new Map(
    workspace.map((p) => [p.manifest['name'] as string, p.manifest['version'] as string]),
  );
  for (const [name, spec] of Object.entries(m.peerDependencies ?? {})) {
    if (!name.startsWith(INTERNAL)) continue;
    const current = versions.get(name);
    if (!current) problems.push(`peer ${name} is not a workspace package`);
    else {
      const problem = peerRangeProblem(spec, current);
      if (problem) problems.push(`peer ${name}: ${problem}`);
    }
  }
  for (const [name, spec] of Object.entries(m.dependencies ?? {})) {
    if (name.startsWith(INTERNAL) && spec !== 'workspace:^') {
      problems.push(`dependency ${name} should be 'workspace:^', is '${spec}'`);
    }
  }
  for (const name of Object.keys(m.peerDependencies ?? {})) {
    if (!name.startsWith(INTERNAL)) continue;
    const devSpec = (m['devDependencies'] as Record<string, string> | undefined)?.[name];
    if (devSpec !== 'workspace:*') problems.push(`peer ${name} should also be a devDependency 'workspace:*'`);
  }
  return problems;
}

/**
 * A provider package (its `src/index.ts` exports `createProvider`, the discovery entry point)
 * declares `"hermesMemory": {"provider": "<folder id>"}`: discovery finds providers only by that
 * declaration (decision 0603). A declared `cli` module is one of the package's `exports` and lives
 * in `src/cli/`.
 */
export function providerManifestProblems(pkg: WorkspacePackage): string[] {
  const index = path.join(pkg.dir, 'src', 'index.ts');
  const declared = manifestOf(pkg)['hermesMemory'] as
    | { provider?: unknown; cli?: unknown; localData?: unknown }
    | undefined;
  const isProvider =
    fs.existsSync(index) && /export (const|function) createProvider\b/.test(fs.readFileSync(index, 'utf8'));
  if (!isProvider && declared === undefined) return [];
  if (declared?.provider !== pkg.id)
    return [
      `hermesMemory.provider should be "${pkg.id}" (a provider package declares its id), is ${JSON.stringify(declared?.provider)}`,
    ];
  const problems: string[] = [];
  if (declared.localData !== undefined && declared.localData !== true)
    problems.push('hermesMemory.localData is true or absent');
  if (declared.cli === undefined) return problems;
  const subpaths = exportTargets(manifestOf(pkg).exports).map((t) => t.at.split(' → ')[0]);
  if (typeof declared.cli !== 'string' || !subpaths.includes(declared.cli))
    problems.push(`hermesMemory.cli ${JSON.stringify(declared.cli)} is not a subpath of "exports"`);
  if (!fs.existsSync(path.join(pkg.dir, 'src', 'cli', 'index.ts')))
    problems.push('hermesMemory.cli is declared but src/cli/index.ts is missing');
  return problems;
}

/** Bare module specifiers a declaration file imports or references. */
export function declarationImports(dts: string): string[] {
  const found = new Set<string>();
  const patterns = [
    /\bfrom\s+['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /^\s*import\s+['"]([^'"]+)['"]/gm,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\/\/\/\s*<reference\s+types=["']([^"']+)["']/g,
  ];
  for (const pattern of patterns) for (const m of dts.matchAll(pattern)) found.add(m[1]!);
  return [...found].filter((s) => !s.startsWith('.') && !s.startsWith('/'));
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
export function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

const NODE_BUILTINS = new Set(builtinModules);
/** Node-only globals: a declaration using one needs @types/node (AbortSignal, URL, … are also in lib.dom). */
const NODE_GLOBALS = /\b(?:Buffer|NodeJS\.|__dirname|__filename)\b/;

/** The package folder a bare name resolves to from `fromDir`, following Node's lookup. */
function installedPackageDir(name: string, fromDir: string): string | null {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name, 'package.json');
    if (fs.existsSync(candidate)) return path.dirname(fs.realpathSync(candidate));
    if (path.dirname(dir) === dir) return null;
  }
}

/** Whether an installed package ships its own declarations. */
function shipsTypes(packageDir: string): boolean {
  const m = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  if (typeof m['types'] === 'string' || typeof m['typings'] === 'string') return true;
  if (exportTargets(m['exports']).some((t) => /\.d\.[cm]?ts$/.test(t.target))) return true;
  return fs.existsSync(path.join(packageDir, 'index.d.ts'));
}

/** Non-test TypeScript sources under `dir`, relative to it. */
function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.[cm]?tsx?$/.test(f) && !/\.test\.[cm]?tsx?$/.test(f));
}

function declarationFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => /\.d\.[cm]?ts$/.test(f));
}

/** Problems that need the built package: every published path exists, every declared import resolves. */
export function buildProblems(pkg: WorkspacePackage): string[] {
  const m = manifestOf(pkg);
  const problems: string[] = [];
  const dist = path.join(pkg.dir, 'dist');
  if (!fs.existsSync(dist)) return [`dist/ missing: build first (pnpm turbo run build --filter=${m.name})`];

  const targets = [
    ...exportTargets(m.exports),
    ...(['main', 'module', 'types'] as const)
      .filter((k) => typeof m[k] === 'string')
      .map((k) => ({ at: k, target: m[k] as string })),
    ...(typeof m.bin === 'string'
      ? [{ at: 'bin', target: m.bin }]
      : Object.entries((m.bin as Record<string, string>) ?? {}).map(([k, v]) => ({
          at: `bin ${k}`,
          target: v,
        }))),
  ];
  const files = Array.isArray(m.files) ? (m.files as string[]) : [];
  for (const { at, target } of targets) {
    const rel = path.posix.normalize(target);
    if (!fs.existsSync(path.join(pkg.dir, rel))) problems.push(`${at}: ${target} does not exist`);
    else if (rel !== 'package.json' && !files.some((f) => rel === f || rel.startsWith(`${f}/`))) {
      problems.push(`${at}: ${target} is not under any "files" entry, so it is not published`);
    }
  }
  for (const at of typesNotFirst(m.exports))
    problems.push(`exports ${at}: "types" must be the first condition`);
  if (!exportTargets(m.exports).some((t) => t.at === './package.json')) {
    problems.push('exports should include "./package.json"');
  }

  // Declarations: whatever they import must install with the package and carry types.
  const declared = new Set(DEPENDENCY_FIELDS.flatMap((field) => Object.keys(m[field] ?? {})));
  let needsNodeTypes = false;
  for (const file of declarationFiles(dist)) {
    const text = fs.readFileSync(path.join(dist, file), 'utf8');
    if (NODE_GLOBALS.test(text)) needsNodeTypes = true;
    for (const specifier of declarationImports(text)) {
      if (specifier.startsWith('node:') || NODE_BUILTINS.has(packageNameOf(specifier))) {
        needsNodeTypes = true;
        continue;
      }
      const name = packageNameOf(specifier);
      if (name === m.name) continue;
      if (!declared.has(name)) {
        problems.push(`dist/${file} imports '${specifier}', which is not a dependency or peer dependency`);
        continue;
      }
      const installed = installedPackageDir(name, pkg.dir);
      if (!installed) problems.push(`dist/${file} imports '${name}', which is not installed`);
      else if (!shipsTypes(installed)) {
        const typesName = `@types/${name.startsWith('@') ? name.slice(1).replace('/', '__') : name}`;
        if (!declared.has(typesName)) {
          problems.push(
            `dist/${file} imports '${name}', which has no types of its own: add ${typesName} to dependencies`,
          );
        }
      }
    }
  }
  if (needsNodeTypes && !declared.has('@types/node')) {
    problems.push(`dist declarations use Node's types: add "@types/node": "*" to dependencies`);
  }
  return problems;
}
