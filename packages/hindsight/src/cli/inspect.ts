/**
 * Hindsight in `hermes-memory status` (no network: a status run contacts no backend) and
 * `doctor` (settings, config.json's permissions, a connection test).
 */
import fs from 'node:fs';
import {
  envFilePath,
  type ProviderCheck,
  type ProviderCliContext,
  type ProviderStatusReport,
  privateFilesCheck,
  readJsonConfig,
  redactSecrets,
} from '@hermes-memory/core';
import { legacyConfigPath, profileConfigPath } from '../config';
import { hindsightOutboxDir, hindsightTurnsOnDisk } from '../outbox';
import { cliSetup, testConnection, unusable } from './connection';

export function hindsightStatus(ctx: ProviderCliContext): ProviderStatusReport {
  const setup = cliSetup(ctx);
  const file = profileConfigPath(ctx.home);
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  return {
    stores: [
      {
        name: 'hindsight config',
        path: file,
        exists: stat !== undefined,
        bytes: stat?.size ?? 0,
        detail: '',
      },
    ],
    details: {
      mode: setup.config.mode,
      api_url: redactSecrets(setup.config.apiURL),
      api_key: setup.config.apiKey ? 'set' : 'missing',
      bank: setup.bankId,
      memory_mode: setup.config.memoryMode,
      settings_from: setup.config.source,
      // Turns an outage left unretained (decision 0115): the next agent start sends them.
      waiting_on_disk: hindsightTurnsOnDisk(ctx.home),
    },
  };
}

export async function hindsightChecks(ctx: ProviderCliContext): Promise<ProviderCheck[]> {
  const setup = cliSetup(ctx);
  const checks: ProviderCheck[] = [];
  const problem = unusable(setup.config);
  checks.push(
    problem
      ? {
          id: 'settings',
          title: 'settings',
          status: 'fail',
          detail: problem,
          fix: `Add HINDSIGHT_API_KEY=… to ${ctx.home}/.env, or run: hermes-memory hindsight setup --mode local_external --api-url URL`,
        }
      : {
          id: 'settings',
          title: 'settings',
          status: 'ok',
          detail: `mode ${setup.config.mode}, ${redactSecrets(setup.config.apiURL)}, bank ${setup.bankId}, key ${setup.config.apiKey ? 'set' : 'not set'} (from ${setup.config.source})`,
        },
  );
  // A corrupt file is skipped by the agent (settings fall through to the next source): say so.
  for (const [id, file] of [
    ['config', profileConfigPath(ctx.home)],
    ['legacy-config', legacyConfigPath(ctx.env)],
  ] as const) {
    const read = readJsonConfig(file);
    if (read.status === 'invalid') {
      checks.push({
        id,
        title: file,
        status: id === 'config' ? 'fail' : 'warn',
        detail: `${read.error} (ignored: settings fall through to the next source)`,
        fix: `Fix or remove ${file}`,
      });
    }
  }
  checks.push(
    privateFilesCheck({
      id: 'private-files',
      title: 'private files',
      files: [profileConfigPath(ctx.home), legacyConfigPath(ctx.env), envFilePath(ctx.home)],
      home: ctx.home,
      okDetail: 'hindsight/config.json and .env are private',
    }),
  );
  for (const warning of setup.config.warnings.filter((w) => /Invalid integer/.test(w))) {
    checks.push({ id: 'setting-value', title: 'setting', status: 'warn', detail: warning });
  }
  const waiting = hindsightTurnsOnDisk(ctx.home);
  if (waiting > 0)
    checks.push({
      id: 'outbox',
      title: 'unretained turns',
      status: 'warn',
      detail: `${waiting} turn(s) from a time Hindsight was unreachable wait on disk (${hindsightOutboxDir(ctx.home)}).`,
      fix: 'Start the agent while Hindsight is reachable: they are retained first.',
    });
  if (!problem) {
    const report = await testConnection(ctx, setup);
    checks.push({
      id: 'connection',
      title: 'connection',
      status: report.ok ? 'ok' : 'fail',
      detail: report.summary,
      ...(report.ok
        ? {}
        : { fix: 'Check HINDSIGHT_API_KEY and api_url (hermes-memory hindsight status --probe)' }),
    });
  }
  return checks;
}
