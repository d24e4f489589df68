import fs from 'node:fs';
import path from 'node:path';
import type { ProviderCheck, ProviderCliContext, ProviderStatusReport } from '@hermes-memory/core';
import { byteroverOutboxDir, byteroverWritesOnDisk } from '../outbox';
import { providerForHome, treeStats } from './settings';

/**
 * The provider's lines in `hermes-memory status`: which brv, where the context tree is and how big,
 * the settings that matter. No child process: `status --probe` adds the provider's `probe()`.
 */
export function byteroverStatus(ctx: ProviderCliContext): ProviderStatusReport {
  const resolved = providerForHome(ctx);
  if ('problem' in resolved) return { details: { settings: resolved.problem } };
  const { provider } = resolved;
  const settings = provider.resolvedSettings;
  const tree = treeStats(provider.workdir);
  return {
    stores: [
      {
        name: 'ByteRover context tree',
        path: tree.path,
        exists: tree.exists,
        bytes: tree.bytes,
        detail: tree.exists ? `${tree.documents} document${tree.documents === 1 ? '' : 's'}` : '',
      },
    ],
    details: {
      brv: provider.brvExecutable ?? 'not found',
      workdir: provider.workdir,
      api_key: settings.apiKey === '' ? 'not set (local only)' : 'set',
      auto_extract: settings.autoExtract,
      prefetch_mode: settings.prefetchMode,
      // Writes brv could not curate before an exit or a crash (decision 0115): the next start curates them.
      waiting_on_disk: byteroverWritesOnDisk(ctx.home),
    },
  };
}

/** `hermes-memory doctor` lines: the settings resolve, brv is installed, the tree's directory is usable. */
export function byteroverChecks(ctx: ProviderCliContext): ProviderCheck[] {
  const resolved = providerForHome(ctx);
  if ('problem' in resolved)
    return [
      {
        id: 'settings',
        title: 'ByteRover settings',
        status: 'fail',
        detail: resolved.problem,
        fix: 'Correct memory.byterover in config.yaml, or run hermes-memory setup byterover.',
      },
    ];
  const { provider } = resolved;
  const brv = provider.brvExecutable;
  const checks: ProviderCheck[] = [
    {
      id: 'settings',
      title: 'ByteRover settings',
      status: 'ok',
      detail: `context tree in ${provider.workdir}`,
    },
    brv
      ? { id: 'brv', title: 'brv CLI', status: 'ok', detail: brv }
      : {
          id: 'brv',
          title: 'brv CLI',
          status: 'fail',
          detail: provider.unavailableReason(),
          fix: 'npm install -g byterover-cli (or set memory.byterover.brv_path)',
        },
  ];
  checks.push(workdirCheck(provider.workdir));
  const waiting = byteroverWritesOnDisk(ctx.home);
  if (waiting > 0)
    checks.push({
      id: 'outbox',
      title: 'uncurated writes',
      status: 'warn',
      detail: `${waiting} write(s) brv could not curate wait on disk (${byteroverOutboxDir(ctx.home)}).`,
      fix: 'Start the agent while brv works (an LLM provider connected): they are curated first.',
    });
  return checks;
}

function workdirCheck(workdir: string): ProviderCheck {
  // The directory may not exist yet (brv's first call creates it): check the nearest existing parent.
  let dir = workdir;
  while (!fs.existsSync(dir) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    return { id: 'workdir', title: 'ByteRover project directory', status: 'ok', detail: workdir };
  } catch {
    return {
      id: 'workdir',
      title: 'ByteRover project directory',
      status: 'fail',
      detail: `${dir} is not writable`,
      fix: `Make ${dir} writable, or set memory.byterover.workdir to a writable directory.`,
    };
  }
}
