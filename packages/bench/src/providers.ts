import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type InitContext, type MemoryProvider, silentLogger } from '@hermes-memory/core';
import { loadPackage } from './packages';

/**
 * Local providers the bench drives through the real contract. Their packages are written in
 * parallel, so each is loaded at run time: a factory (`create<Id>Provider`, per DESIGN.md) or the
 * exported provider class; when neither exists yet the provider is reported as unavailable.
 */
export interface LocalProviderEntry {
  name: string;
  pkg: string;
  factoryNames: string[];
  classNames: string[];
  /** Part of the latency suite's MemoryManager stack (false: fuzzed only). */
  lifecycle: boolean;
}

export const LOCAL_PROVIDERS: readonly LocalProviderEntry[] = [
  {
    name: 'builtin',
    pkg: '@hermes-memory/builtin',
    factoryNames: ['createBuiltinProvider'],
    classNames: ['BuiltinMemoryProvider', 'BuiltinProvider'],
    lifecycle: true,
  },
  {
    name: 'holographic',
    pkg: '@hermes-memory/holographic',
    factoryNames: ['createHolographicProvider'],
    classNames: ['HolographicMemoryProvider', 'HolographicProvider'],
    lifecycle: true,
  },
  {
    name: 'provider-template-local',
    pkg: '@hermes-memory/provider-template-local',
    factoryNames: ['createTemplateProvider'],
    classNames: ['TemplateProvider'],
    lifecycle: false,
  },
];

export type ProviderFactory = (settings?: Record<string, unknown>) => MemoryProvider;

async function importPkg(pkg: string): Promise<Record<string, unknown>> {
  switch (pkg) {
    case '@hermes-memory/builtin':
      return await loadPackage('@hermes-memory/builtin');
    case '@hermes-memory/holographic':
      return await loadPackage('@hermes-memory/holographic');
    case '@hermes-memory/provider-template-local':
      return await loadPackage('@hermes-memory/provider-template-local');
    default:
      throw new Error(`unknown provider package ${pkg}`);
  }
}

export async function loadProviderFactory(entry: LocalProviderEntry): Promise<ProviderFactory> {
  const mod = await importPkg(entry.pkg);
  for (const f of entry.factoryNames) {
    const fn = mod[f];
    if (typeof fn === 'function')
      return (settings) => (fn as (s?: Record<string, unknown>) => MemoryProvider)(settings ?? {});
  }
  for (const c of entry.classNames) {
    const cls = mod[c];
    if (typeof cls === 'function') {
      return (settings) => new (cls as new (s?: Record<string, unknown>) => MemoryProvider)(settings ?? {});
    }
  }
  throw new Error(`${entry.pkg} exports no ${[...entry.factoryNames, ...entry.classNames].join(' / ')} yet`);
}

/** A fresh HERMES_HOME in a temp dir; `cleanup` removes it. */
export function tempHome(prefix = 'hm-bench-home-'): { home: string; cleanup: () => void } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.mkdirSync(path.join(home, 'memories'), { recursive: true });
  return { home, cleanup: () => fs.rmSync(home, { recursive: true, force: true }) };
}

/** Bytes of every file under `dir` (0 when it is gone). */
export function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []) {
    const p = path.join(dir, entry.name);
    total += entry.isDirectory() ? dirBytes(p) : fs.statSync(p).size;
  }
  return total;
}

export function initContext(home: string, extra: Partial<InitContext> = {}): InitContext {
  return {
    hermesHome: home,
    platform: 'cli',
    agentContext: 'primary',
    logger: silentLogger,
    env: {},
    ...extra,
  };
}
