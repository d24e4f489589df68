/**
 * Supermemory in `hermes-memory status` (no network: a status run contacts no backend) and
 * `doctor` (the key, supermemory.json's permissions, a connection test).
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  type ProviderCheck,
  type ProviderCliContext,
  type ProviderStatusReport,
  readJsonConfig,
  redactSecrets,
} from '@hermes-memory/core';
import { CONFIG_FILE } from '../config';
import { supermemoryOutboxDir, supermemoryWritesOnDisk } from '../outbox';
import { cliSetup, testConnection } from './connection';

export function supermemoryStatus(ctx: ProviderCliContext): ProviderStatusReport {
  const setup = cliSetup(ctx);
  const file = path.join(ctx.home, CONFIG_FILE);
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  return {
    stores: [
      {
        name: 'supermemory config',
        path: file,
        exists: stat !== undefined,
        bytes: stat?.size ?? 0,
        detail: '',
      },
    ],
    details: {
      container: setup.containerTag,
      base_url: redactSecrets(setup.config.baseURL),
      api_key: setup.config.apiKey ? 'set' : 'missing',
      auto_recall: setup.config.autoRecall,
      auto_capture: setup.config.autoCapture,
      // Writes an outage left undelivered (decision 0115): the next agent start sends them.
      waiting_on_disk: supermemoryWritesOnDisk(ctx.home),
    },
  };
}

export async function supermemoryChecks(ctx: ProviderCliContext): Promise<ProviderCheck[]> {
  const setup = cliSetup(ctx);
  const checks: ProviderCheck[] = [];
  checks.push(
    setup.config.apiKey
      ? { id: 'api-key', title: 'API key', status: 'ok', detail: 'SUPERMEMORY_API_KEY is set' }
      : {
          id: 'api-key',
          title: 'API key',
          status: 'fail',
          detail: 'SUPERMEMORY_API_KEY is not set',
          fix: `Add SUPERMEMORY_API_KEY=… to ${ctx.home}/.env`,
        },
  );
  const file = path.join(ctx.home, CONFIG_FILE);
  const read = readJsonConfig(file);
  if (read.status === 'invalid') {
    checks.push({
      id: 'config',
      title: CONFIG_FILE,
      status: 'fail',
      detail: read.error,
      fix: `Fix or remove ${file}`,
    });
  } else if (read.status === 'ok') {
    const mode = fs.statSync(file).mode & 0o777;
    checks.push(
      mode & 0o077
        ? {
            id: 'config',
            title: CONFIG_FILE,
            status: 'warn',
            detail: `mode ${mode.toString(8)}; it should be 600`,
            fix: `chmod 600 ${file}`,
            repair: () => {
              fs.chmodSync(file, 0o600);
              return `chmod 600 ${file}`;
            },
          }
        : { id: 'config', title: CONFIG_FILE, status: 'ok', detail: 'valid, mode 600' },
    );
  }
  const waiting = supermemoryWritesOnDisk(ctx.home);
  if (waiting > 0)
    checks.push({
      id: 'outbox',
      title: 'undelivered turns',
      status: 'warn',
      detail: `${waiting} turn(s) from a time Supermemory was unreachable wait on disk (${supermemoryOutboxDir(ctx.home)}).`,
      fix: 'Start the agent while Supermemory is reachable: they are sent first.',
    });
  if (setup.config.apiKey) {
    const report = await testConnection(ctx, setup);
    checks.push({
      id: 'connection',
      title: 'connection',
      status: report.ok ? 'ok' : 'fail',
      detail: report.summary,
      ...(report.ok
        ? {}
        : { fix: 'Check SUPERMEMORY_API_KEY and base_url (hermes-memory supermemory status)' }),
    });
  }
  return checks;
}
