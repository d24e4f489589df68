import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type DiscoveryOptions,
  type MemoryProvider,
  NoSuchProviderError,
  type ProviderPackage,
  type DiscoverySearch,
  describeError,
  describeSearch,
  explainDiscovery,
  loadEnvFile,
  resolveMemoryProvider,
} from '@hermes-memory/core';

/**
 * A thin layer over core's plugin resolution (`discoverProviderPackages`, `resolveMemoryProvider`)
 * that turns each outcome into the one-line hint the CLI prints.
 */

export interface DiscoveredProvider {
  name: string;
  packageName: string;
  provider: MemoryProvider;
}

/** The built-in store is not an external provider: "Built-in only" stands for it. */
const BUILTIN = 'builtin';

/**
 * Where to look: the user's project (cwd and its parents), `<home>/plugins`, the project's
 * `.hermes/plugins` when HERMES_ENABLE_PROJECT_PLUGINS is set, and the CLI's own install (so the
 * providers it ships with, e.g. holographic, are found from any directory).
 */
export function discoveryOptions(cwd: string, home: string): DiscoveryOptions {
  return { cwd, hermesHome: home, paths: [cliPackageDir()], env: process.env };
}

function cliPackageDir(): string {
  // dist/bin.js (or src/*.ts under tests): the package root is one level up.
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
}

/** Installed provider packages (no import), without the built-in store, and where discovery looked. */
export function findProviderPackages(
  cwd: string,
  home: string,
): { packages: ProviderPackage[]; search: DiscoverySearch } {
  const { found, search } = explainDiscovery(discoveryOptions(cwd, home));
  return { packages: found.filter((p) => p.name !== BUILTIN), search };
}

/** Installed provider packages (no import), without the built-in store. */
export function installedProviderPackages(cwd: string, home: string): ProviderPackage[] {
  return findProviderPackages(cwd, home).packages;
}

/** "Memory provider 'x' not found. Install it … Discovery searched …": what to do, then where we looked. */
export function notFoundMessage(name: string, search: DiscoverySearch | undefined): string {
  const where = search ? ` Discovery ${describeSearch(search)}.` : '';
  return `Memory provider '${name}' not found. Install it (npm install @hermes-memory/${name}) or run 'hermes-memory setup' to pick another.${where}`;
}

type LoadResult = { ok: true; provider: DiscoveredProvider } | { ok: false; message: string };

async function tryLoad(name: string, cwd: string, home: string): Promise<LoadResult> {
  const result =
    name === BUILTIN
      ? { status: 'invalid-name' as const }
      : await resolveMemoryProvider(name, discoveryOptions(cwd, home));
  switch (result.status) {
    case 'loaded':
      return { ok: true, provider: { name, packageName: result.packageName, provider: result.provider } };
    case 'invalid-name':
      return { ok: false, message: notFoundMessage(name, undefined) };
    case 'not-found':
      return { ok: false, message: notFoundMessage(name, result.search) };
    case 'no-factory':
      return {
        ok: false,
        message: `Memory provider '${name}' failed to load: ${result.packageName} exports no provider factory.`,
      };
    case 'failed':
      return {
        ok: false,
        message: `Memory provider '${name}' failed to load: ${firstLine(describeError(result.error))}`,
      };
  }
}

/** Load the provider a config names. Not installed, or installed but broken: NoSuchProviderError. */
export async function loadProvider(name: string, cwd: string, home: string): Promise<DiscoveredProvider> {
  const result = await tryLoad(name, cwd, home);
  if (!result.ok) throw new NoSuchProviderError(name, result.message);
  return result.provider;
}

export interface BrokenProvider {
  name: string;
  packageName: string;
  error: string;
}

/**
 * Every installed provider (a package declaring `hermesMemory.provider`), loaded; one that fails
 * to load is reported in `broken`. `search` says where discovery looked, for "found nothing".
 */
export async function discoverProviders(
  cwd: string,
  home: string,
): Promise<{ loaded: DiscoveredProvider[]; broken: BrokenProvider[]; search: DiscoverySearch }> {
  const loaded: DiscoveredProvider[] = [];
  const broken: BrokenProvider[] = [];
  const { packages, search } = findProviderPackages(cwd, home);
  for (const pkg of packages) {
    const result = await tryLoad(pkg.name, cwd, home);
    if (result.ok) loaded.push(result.provider);
    else broken.push({ name: pkg.name, packageName: pkg.packageName, error: result.message });
  }
  return { loaded, broken, search };
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? text).trim();
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
