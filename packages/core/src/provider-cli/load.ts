import { pathToFileURL } from 'node:url';
import { type ProviderPackage, packageSubpathEntry, readPackageJson } from '../plugins/discovery';
import type { ProviderCliModule } from './types';

/** Typed identity: `export default defineProviderCli({ provider: 'acme', ... })`. */
export function defineProviderCli<const M extends ProviderCliModule>(module: M): M {
  return module;
}

const HOOKS = [
  'status',
  'doctor',
  'exportRecords',
  'validateRecord',
  'importRecords',
  'postSetup',
  'setupWizard',
] as const;

/**
 * Why a value is not a provider CLI module, or undefined when it is one. Structural, so a module
 * built against another copy of core passes.
 */
export function providerCliProblem(value: unknown, expectedProvider?: string): string | undefined {
  if (typeof value !== 'object' || value === null) return 'its CLI module exports no object';
  const m = value as Record<string, unknown>;
  if (typeof m.provider !== 'string' || m.provider === '') return 'its CLI module names no provider';
  if (expectedProvider !== undefined && m.provider !== expectedProvider)
    return `its CLI module is for '${m.provider}', not '${expectedProvider}'`;
  if (typeof m.summary !== 'string') return 'its CLI module has no summary';
  if (
    m.configPaths !== undefined &&
    (!Array.isArray(m.configPaths) || !m.configPaths.every((p) => typeof p === 'string' && p !== ''))
  )
    return "its CLI module's configPaths is not a list of config paths";
  for (const hook of HOOKS)
    if (m[hook] !== undefined && typeof m[hook] !== 'function')
      return `its CLI module's ${hook} is not a function`;
  if (m.commands !== undefined) {
    if (!Array.isArray(m.commands)) return "its CLI module's commands is not a list";
    const names = new Set<string>();
    for (const c of m.commands as unknown[]) {
      const cmd = c as Record<string, unknown> | null;
      if (!cmd || typeof cmd.name !== 'string' || !/^[a-z][a-z0-9-]*$/.test(cmd.name))
        return 'its CLI module has a command without a valid name';
      if (typeof cmd.run !== 'function' || typeof cmd.usage !== 'string' || typeof cmd.summary !== 'string')
        return `its command '${cmd.name}' needs summary, usage and run`;
      if (names.has(cmd.name)) return `its command '${cmd.name}' is listed twice`;
      names.add(cmd.name);
    }
  }
  if (
    (m.exportRecords !== undefined || m.importRecords !== undefined) &&
    (typeof m.exportRecords !== 'function') !== (typeof m.importRecords !== 'function')
  )
    return 'its CLI module must define exportRecords and importRecords together';
  return undefined;
}

export function isProviderCliModule(value: unknown): value is ProviderCliModule {
  return providerCliProblem(value) === undefined;
}

export type ProviderCliLoadResult =
  | { status: 'loaded'; module: ProviderCliModule }
  /** The package declares no `hermesMemory.cli`. */
  | { status: 'none' }
  | { status: 'failed'; error: unknown };

/**
 * Import a discovered package's CLI module (`hermesMemory.cli`, resolved through its `exports`),
 * without importing the provider's main entry. Never throws: the result says what happened.
 */
export async function loadProviderCli(pkg: ProviderPackage): Promise<ProviderCliLoadResult> {
  if (!pkg.cli) return { status: 'none' };
  try {
    const file = packageSubpathEntry(pkg.dir, readPackageJson(pkg.dir), pkg.cli);
    const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    const value = unwrapDefault(mod);
    const problem = providerCliProblem(value, pkg.name);
    if (problem) return { status: 'failed', error: new Error(`${pkg.packageName}: ${problem}.`) };
    return { status: 'loaded', module: value as ProviderCliModule };
  } catch (error) {
    return { status: 'failed', error };
  }
}

/** `export default`, unwrapped once more when a CommonJS build was imported from ESM. */
function unwrapDefault(mod: Record<string, unknown>): unknown {
  let value: unknown = mod.default ?? mod.providerCli;
  if (
    typeof value === 'object' &&
    value !== null &&
    !('provider' in value) &&
    'default' in (value as Record<string, unknown>)
  )
    value = (value as Record<string, unknown>).default;
  return value;
}
