/**
 * `@hermes-memory/retaindb/cli` — RetainDB in the `hermes-memory` command line: `hermes-memory
 * retaindb queue` (inspect and replay the durable queue), `test` (connection), its status and
 * doctor lines, and the setup flow's connection check. Loaded through the provider seam
 * (decision 0603), never by the agent.
 */
import {
  type ProviderCheck,
  type ProviderCliContext,
  type ProviderStatusReport,
  defineProviderCli,
  privateFilesCheck,
  sqliteIntegrityCheck,
  sqliteSize,
} from '@hermes-memory/core';
import { projectFor, resolveRetaindbSettings } from '../settings';
import { providerFor, queueCommand, testCommand } from './commands';
import { inspectQueue, openReadonly, queueFile } from './inspect';

export { inspectQueue, type QueueSnapshot } from './inspect';

/** The queue file in the Stores table, the endpoint and project, and the service's health (one probe). */
async function status(ctx: ProviderCliContext): Promise<ProviderStatusReport> {
  const settings = resolveRetaindbSettings({}, ctx.providerConfig, ctx.env);
  const snapshot = inspectQueue(ctx.home, 1);
  const details: Record<string, string | number | boolean> = {
    base_url: settings.baseURL,
    project: projectFor(settings, ctx.home),
    queue_pending: snapshot.pending,
    queue_failing: snapshot.failing,
  };
  if (snapshot.writer)
    details.queue_writer = `${snapshot.writer.owner}${snapshot.writer.alive ? '' : ' (gone)'}`;
  const provider = providerFor(ctx);
  // Health is one authenticated request: only for the active provider (status lists this module
  // for its local queue file even when another provider is active).
  if (ctx.config.memory.provider !== 'retaindb') {
    details.health = 'not active';
  } else if (provider.isAvailable()) {
    const probe = await provider.probe({ signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(5000)]) });
    details.health = probe.status === 'ok' ? 'ok' : 'down';
    details.health_detail = probe.message;
  } else {
    details.health = 'unavailable';
    details.health_detail = provider.unavailableReason();
  }
  return {
    stores: [
      {
        name: 'retaindb_queue.db',
        path: snapshot.file,
        exists: snapshot.exists,
        bytes: snapshot.exists ? sqliteSize(snapshot.file) : 0,
        detail: snapshot.exists ? `${snapshot.pending} turn(s) waiting` : '',
      },
    ],
    details,
  };
}

function doctor(ctx: ProviderCliContext): ProviderCheck[] {
  const file = queueFile(ctx.home);
  const settings = resolveRetaindbSettings({}, ctx.providerConfig, ctx.env);
  const checks: ProviderCheck[] = [
    settings.apiKey
      ? { id: 'api-key', title: 'RetainDB API key', status: 'ok', detail: 'RETAINDB_API_KEY is set' }
      : {
          id: 'api-key',
          title: 'RetainDB API key',
          status: 'fail',
          detail: 'RETAINDB_API_KEY is not set',
          fix: 'hermes-memory setup retaindb (or put RETAINDB_API_KEY=… in $HERMES_HOME/.env)',
        },
    privateFilesCheck({
      id: 'private-files',
      title: 'Queue file permissions',
      files: [file, `${file}-wal`, `${file}-shm`],
      home: ctx.home,
      okDetail: 'the queue file is private',
    }),
  ];
  const snapshot = inspectQueue(ctx.home, 1);
  if (!snapshot.exists) return checks;
  checks.push(sqliteIntegrityCheck({ file, home: ctx.home, open: openReadonly }));
  checks.push(
    snapshot.failing > 0
      ? {
          id: 'backlog',
          title: 'Queued turns',
          status: 'warn',
          detail:
            `${snapshot.pending} waiting, ${snapshot.failing} failed at least once: ${snapshot.rows[0]?.last_error ?? ''}`.slice(
              0,
              200,
            ),
          fix: 'hermes-memory retaindb queue (see the errors), then hermes-memory retaindb queue replay',
        }
      : { id: 'backlog', title: 'Queued turns', status: 'ok', detail: `${snapshot.pending} waiting` },
  );
  return checks;
}

export default defineProviderCli({
  provider: 'retaindb',
  summary: 'inspect and replay the durable queue, test the connection',
  configPaths: ['memory.retaindb'],
  commands: [queueCommand, testCommand],
  status,
  doctor,
  async postSetup(ctx) {
    const result = await providerFor(ctx).probe({ signal: ctx.signal });
    if (result.status !== 'ok') throw ctx.fail(`RetainDB connection test failed: ${result.message}`);
    ctx.out(`✓ ${result.message}`);
  },
});
