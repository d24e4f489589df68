import fs from 'node:fs';
import {
  type MemoryProvider,
  describeConfigConflict,
  loadHermesConfig,
  providerConfigPaths,
  readProviderConfig,
  silentLogger,
  validateConfigValues,
} from '@hermes-memory/core';
import { memoryLockMechanism } from '@hermes-memory/builtin';
import { describeHealth, providerHealth } from '../health';
import { homePaths } from '../paths';
import { applyHomeEnv, loadProvider } from '../providers';
import { openMemoryStore } from '../stores';
import type { CheckResult } from './checks';

/**
 * The configured provider loads and reports itself available (with its reason when not), and —
 * when available — its connection probe reaches the backend (decision 0106).
 */
export async function checkProvider(
  home: string,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  signal?: AbortSignal,
): Promise<CheckResult[]> {
  let name: string;
  try {
    name = loadHermesConfig(home).memory.provider;
  } catch {
    return []; // the config check already reports a corrupt file
  }
  const title = 'Memory provider';
  if (!name)
    return [{ id: 'provider', title, status: 'ok', detail: 'built-in only (MEMORY.md / USER.md, state.db)' }];
  try {
    const { provider, packageName } = await loadProvider(name, cwd, home);
    applyHomeEnv(home, env);
    const available = provider.isAvailable();
    const reason = available ? '' : provider.unavailableReason();
    const settings = checkProviderSettings(home, name, provider);
    return available
      ? [
          { id: 'provider', title, status: 'ok', detail: `${name} (${packageName}) is available` },
          ...settings,
          await checkConnection(name, provider, signal),
        ]
      : [
          ...settings,
          {
            id: 'provider',
            title,
            status: 'fail',
            detail: `${name} is installed but not available${reason ? `: ${reason}` : ''}`,
            fix: `Run 'hermes-memory setup ${name}' to configure it.`,
          },
        ];
  } catch (error) {
    return [
      {
        id: 'provider',
        title,
        status: 'fail',
        detail: error instanceof Error ? error.message : String(error),
        fix: `Install it (npm install @hermes-memory/${name}), or run 'hermes-memory setup' to choose another provider.`,
      },
    ];
  }
}

/** The provider's explicit connection probe, within PROBE_TIMEOUT_MS; one without a probe is skipped. */
async function checkConnection(
  name: string,
  provider: MemoryProvider,
  signal?: AbortSignal,
): Promise<CheckResult> {
  const { probe, health } = await providerHealth(provider, {
    probe: true,
    logger: silentLogger,
    ...(signal ? { signal } : {}),
  });
  const title = `${name} connection`;
  const latency = probe?.latencyMs !== undefined ? ` (${probe.latencyMs} ms)` : '';
  if (!probe || probe.status === 'skipped')
    return { id: 'provider-probe', title, status: 'skip', detail: probe?.message ?? 'no probe ran' };
  if (probe.status === 'ok')
    return { id: 'provider-probe', title, status: 'ok', detail: `${probe.message}${latency}` };
  return {
    id: 'provider-probe',
    title,
    status: 'fail',
    detail: `${probe.message}${latency}; health ${describeHealth(health)}`,
    fix: `Check that the backend is reachable and the settings and key are right: hermes-memory setup ${name}.`,
  };
}

/**
 * The provider's saved settings fit its config schema (a value the provider would refuse at start
 * is a failure here, not a WARN line in the agent's log), and no two config places disagree.
 */
function checkProviderSettings(home: string, name: string, provider: MemoryProvider): CheckResult[] {
  const paths = providerConfigPaths(provider);
  const read = readProviderConfig(loadHermesConfig(home), paths);
  const problems = validateConfigValues(provider.getConfigSchema(), read.values);
  const title = `${name} settings`;
  const out: CheckResult[] = [];
  if (problems.length > 0)
    out.push({
      id: 'provider-settings',
      title,
      status: 'fail',
      detail: problems.map((p) => p.message).join('; '),
      fix: `Set valid values: hermes-memory setup ${name} ${problems.map((p) => `--set ${p.key}=…`).join(' ')} (or edit ${paths[0]} in config.yaml).`,
    });
  for (const conflict of read.conflicts)
    out.push({
      id: 'provider-settings',
      title,
      status: 'warn',
      detail: `config conflict: ${describeConfigConflict(conflict)}`,
      fix: `Remove ${conflict.ignored.map((i) => `${i.path}.${conflict.key}`).join(', ')} from config.yaml (or set the same value).`,
    });
  if (out.length === 0)
    out.push({
      id: 'provider-settings',
      title,
      status: 'ok',
      detail: `valid (read from ${paths.join(', ')})`,
    });
  return out;
}

/** Whether memory-file writes take the flock the Python agent takes (see decision 0304). */
export async function checkLockMechanism(): Promise<CheckResult> {
  const title = 'Memory file lock';
  const mechanism = await memoryLockMechanism();
  return mechanism.kind === 'flock'
    ? {
        id: 'lock-mechanism',
        title,
        status: 'ok',
        detail: 'flock on <file>.lock, shared with the Python agent',
      }
    : {
        id: 'lock-mechanism',
        title,
        status: 'warn',
        detail: `exclusive lock files (${mechanism.reason}): a Python Hermes agent writing at the same time is not excluded`,
        fix: 'Reinstall so the koffi package and its prebuilt binary for this platform are present (npm install).',
      };
}

/** MEMORY.md / USER.md can be read and are within their limits. */
export function checkMemoryFiles(home: string): CheckResult[] {
  const p = homePaths(home);
  if (!fs.existsSync(p.memoriesDir)) return [];
  let store: ReturnType<typeof openMemoryStore>;
  try {
    store = openMemoryStore(home, { create: false });
  } catch (error) {
    return [
      {
        id: 'memory-files',
        title: 'Memory files',
        status: 'fail',
        detail: error instanceof Error ? error.message : String(error),
      },
    ];
  }
  return (['memory', 'user'] as const).map((target) => {
    const file = store.pathFor(target);
    const title = `Memory file ${target === 'memory' ? 'MEMORY.md' : 'USER.md'}`;
    if (fs.existsSync(file)) {
      try {
        fs.accessSync(file, fs.constants.R_OK | fs.constants.W_OK);
      } catch {
        return {
          id: 'memory-files',
          title,
          status: 'fail',
          detail: `${file} is not readable and writable`,
          fix: `chmod 600 ${JSON.stringify(file)} (and check its owner)`,
        };
      }
    }
    const usage = store.usage(target);
    if (usage.current > usage.limit) {
      return {
        id: 'memory-files',
        title,
        status: 'warn',
        detail: `over its limit: ${usage.text}`,
        fix: `Consolidate entries: hermes-memory memory list --target ${target}, then replace/remove.`,
      };
    }
    return {
      id: 'memory-files',
      title,
      status: 'ok',
      detail: `${store.entries(target).length} entries, ${usage.text}`,
    };
  });
}
