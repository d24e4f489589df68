import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type MemoryProvider, NoSuchProviderError, isMemoryProvider, loadEnvFile } from '@hermes-memory/core';

/** Provider packages published from this repository, tried by name (`@hermes-memory/<name>`). */
export const FIRST_PARTY_PROVIDERS = [
  'holographic',
  'honcho',
  'mem0',
  'retaindb',
  'byterover',
  'supermemory',
  'hindsight',
  'continuity',
  'hivemind',
] as const;

export interface DiscoveredProvider {
  name: string;
  packageName: string;
  provider: MemoryProvider;
}

const PROVIDER_NAME = /^[a-z0-9][a-z0-9_-]*$/i;

function pascal(name: string): string {
  return name
    .split(/[-_]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/** Resolve a package from the user's project first, then from the CLI's own dependencies. */
function resolvePackage(spec: string, cwd: string): string | undefined {
  for (const base of [path.join(cwd, 'noop.js'), import.meta.url]) {
    try {
      return createRequire(base).resolve(spec);
    } catch {}
  }
  return undefined;
}

/** Packages in `<cwd>/node_modules` that declare `"hermesMemory": {"provider": "<name>"}`. */
function declaredProviders(cwd: string): Map<string, string> {
  const found = new Map<string, string>();
  const root = path.join(cwd, 'node_modules');
  const dirs: string[] = [];
  try {
    for (const entry of fs.readdirSync(root)) {
      if (entry.startsWith('.')) continue;
      if (entry.startsWith('@')) {
        for (const sub of fs.readdirSync(path.join(root, entry))) dirs.push(path.join(entry, sub));
      } else dirs.push(entry);
    }
  } catch {
    return found;
  }
  for (const dir of dirs) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as {
        name?: string;
        hermesMemory?: { provider?: unknown };
      };
      const name = pkg.hermesMemory?.provider;
      if (typeof name === 'string' && PROVIDER_NAME.test(name) && pkg.name && !found.has(name))
        found.set(name, pkg.name);
    } catch {}
  }
  return found;
}

/**
 * Build a provider from a loaded module: the `create<Name>Provider()` factory, else a default
 * export (factory, class or instance), else a `provider` export.
 */
function instantiate(mod: Record<string, unknown>, name: string): MemoryProvider | undefined {
  const candidates = [mod[`create${pascal(name)}Provider`], mod.default, mod.provider];
  for (const candidate of candidates) {
    if (isMemoryProvider(candidate)) return candidate;
    if (typeof candidate === 'function') {
      try {
        const made: unknown = /^class\s/.test(Function.prototype.toString.call(candidate))
          ? new (candidate as new () => unknown)()
          : (candidate as () => unknown)();
        if (isMemoryProvider(made)) return made;
      } catch {}
    }
  }
  return undefined;
}

/** Load the provider a config names. Unknown or broken names throw NoSuchProviderError. */
export async function loadProvider(name: string, cwd: string = process.cwd()): Promise<DiscoveredProvider> {
  if (!PROVIDER_NAME.test(name)) throw new NoSuchProviderError(name, `Memory provider '${name}' not found.`);
  const packageName = declaredProviders(cwd).get(name) ?? `@hermes-memory/${name}`;
  const resolved = resolvePackage(packageName, cwd);
  if (!resolved) {
    throw new NoSuchProviderError(
      name,
      `Memory provider '${name}' not found. Install it (npm install ${packageName}) or run 'hermes-memory setup' to pick another.`,
    );
  }
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(resolved).href)) as Record<string, unknown>;
  } catch (error) {
    throw new NoSuchProviderError(
      name,
      `Memory provider '${name}' failed to load: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    );
  }
  const provider = instantiate(mod, name);
  if (!provider)
    throw new NoSuchProviderError(name, `Package ${packageName} does not export a memory provider.`);
  return { name, packageName, provider };
}

/** Every provider that can be loaded here: first-party packages plus declared third-party ones. */
export async function discoverProviders(cwd: string = process.cwd()): Promise<DiscoveredProvider[]> {
  const names = new Set<string>([...FIRST_PARTY_PROVIDERS, ...declaredProviders(cwd).keys()]);
  const out: DiscoveredProvider[] = [];
  for (const name of names) {
    try {
      out.push(await loadProvider(name, cwd));
    } catch {}
  }
  return out;
}

/**
 * Make `<home>/.env` visible to providers' `isAvailable()` (which reads settings already in the
 * environment), as the agent does at start: the file wins over the shell. CLI process only.
 */
export function applyHomeEnv(
  home: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): void {
  let fromFile: Record<string, string> = {};
  try {
    fromFile = loadEnvFile(home);
  } catch {}
  if (env !== process.env)
    for (const [k, v] of Object.entries(env))
      if (v !== undefined && process.env[k] === undefined) process.env[k] = v;
  Object.assign(process.env, fromFile);
}
