/** `hermes-memory retaindb queue [replay]` and `hermes-memory retaindb test`. */
import {
  type ProviderCliContext,
  type ProviderCommand,
  formatTable,
  silentLogger,
} from '@hermes-memory/core';
import { RetaindbProvider } from '../provider';
import { inspectQueue } from './inspect';

/** The provider as the agent would build it: `.env`, config.yaml and the home of this run. */
export function providerFor(ctx: ProviderCliContext): RetaindbProvider {
  return new RetaindbProvider({}, { env: ctx.env, providerConfig: ctx.providerConfig, hermesHome: ctx.home });
}

const QUEUE_USAGE = `usage: hermes-memory retaindb queue [--limit N] [--json]
       hermes-memory retaindb queue replay [--timeout SECONDS] [--json]

Shows the durable write-behind queue ($HERMES_HOME/retaindb_queue.db): turns not yet stored by
RetainDB, their attempts and last error, and which process holds the writer lease.
'replay' sends them now (the same writer the agent runs: claims, idempotency keys, backoff) and
waits until the queue is empty or the timeout passes. When a live agent holds the writer lease,
it is already sending them and replay waits for it.`;

export const queueCommand: ProviderCommand = {
  name: 'queue',
  summary: 'inspect the durable write-behind queue, or replay it now',
  usage: QUEUE_USAGE,
  async run(ctx, argv) {
    const { values, positionals } = ctx.parseArgs(argv, {
      limit: { type: 'string' },
      timeout: { type: 'string' },
    });
    const action = positionals[0] ?? 'list';
    if (action === 'replay') return replay(ctx, Number(values.timeout ?? 30));
    if (action !== 'list')
      throw ctx.usageError(`unknown queue action '${action}'`, 'use: queue [list] | queue replay');
    const limit = Number(values.limit ?? 20);
    if (!Number.isInteger(limit) || limit < 1) throw ctx.usageError('--limit must be a positive integer');
    const snapshot = inspectQueue(ctx.home, limit);
    if (ctx.json) {
      ctx.printJson(snapshot);
      return 0;
    }
    if (!snapshot.exists) {
      ctx.out(`No queue yet (${snapshot.file}): nothing waiting.`);
      return 0;
    }
    ctx.out(
      `${snapshot.pending} turn(s) waiting in ${snapshot.file}${snapshot.failing ? `, ${snapshot.failing} failed at least once` : ''}.`,
    );
    if (snapshot.writer) {
      const w = snapshot.writer;
      ctx.out(
        `Writer: ${w.owner} (${w.alive ? 'running' : 'gone'}, lease until ${new Date(w.expiresAt * 1000).toISOString()})`,
      );
    }
    if (snapshot.rows.length > 0) {
      ctx.out(
        formatTable([
          ['id', 'session', 'queued', 'attempts', 'last error', 'turn'],
          ...snapshot.rows.map((r) => [
            String(r.id),
            r.session_id,
            r.created_at,
            String(r.attempts),
            (r.last_error ?? '').slice(0, 60),
            r.preview,
          ]),
        ]),
      );
    }
    return 0;
  },
};

async function replay(ctx: ProviderCliContext, timeoutSeconds: number): Promise<number> {
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0)
    throw ctx.usageError('--timeout must be a positive number of seconds');
  const provider = providerFor(ctx);
  if (!provider.isAvailable()) throw ctx.fail(provider.unavailableReason(), 'hermes-memory setup retaindb');
  const before = inspectQueue(ctx.home, 1).pending;
  await provider.initialize(`cli-replay-${process.pid}`, {
    hermesHome: ctx.home,
    platform: 'cli',
    agentContext: 'primary',
    env: ctx.env,
    providerConfig: ctx.providerConfig,
    logger: ctx.json ? silentLogger : ctx.logger,
  });
  const drained = await provider.flush(timeoutSeconds * 1000);
  const sent = provider.queue?.stats.sent ?? 0;
  await provider.shutdown({ timeoutMs: 1000 });
  const after = inspectQueue(ctx.home, 1);
  const result = { before: before, sent, left: after.pending, drained, writer: after.writer };
  if (ctx.json) ctx.printJson(result);
  else if (drained) ctx.out(`Replayed: ${sent} sent by this run, ${after.pending} left.`);
  else
    ctx.err(
      `Not drained within ${timeoutSeconds} s: ${after.pending} left (${after.writer?.alive ? `the agent ${after.writer.owner} holds the writer lease` : 'see last errors with: hermes-memory retaindb queue'}).`,
    );
  return drained ? 0 : 1;
}

export const testCommand: ProviderCommand = {
  name: 'test',
  summary: 'check the connection and the key (one authenticated request)',
  usage: 'usage: hermes-memory retaindb test [--json]',
  async run(ctx, argv) {
    ctx.parseArgs(argv, {});
    const provider = providerFor(ctx);
    if (!provider.isAvailable()) throw ctx.fail(provider.unavailableReason(), 'hermes-memory setup retaindb');
    const result = await provider.probe({ signal: ctx.signal });
    if (ctx.json) ctx.printJson(result);
    else if (result.status === 'ok') ctx.out(`✓ ${result.message}`);
    else ctx.err(`✗ ${result.message}`);
    return result.status === 'ok' ? 0 : 1;
  },
};
