import { randomBytes } from 'node:crypto';
import { type InitContext, type MemoryProvider, silentLogger } from '@hermes-memory/core';

export interface DurabilityWorkerOptions {
  /** Extra `initialize` context (settings, env, the fake backend's URL). */
  initContext?: (hermesHome: string) => Partial<InitContext> | Promise<Partial<InitContext>>;
  /** argv to read (default `process.argv.slice(2)`): `<hermesHome> <turns> <label>`. */
  argv?: readonly string[];
}

/**
 * The child side of the `durability.kill-9` check. Call it from the script named in
 * `harness.durabilityWorker`: it opens the provider on the home it is given, syncs turns one by
 * one and prints `ack <marker>` as soon as each `syncTurn` resolved — the acknowledgement the
 * check holds the provider to after killing this process with SIGKILL. It then idles until it is
 * killed.
 *
 * ```ts
 * // test/durability-worker.ts
 * import { runDurabilityWorker } from '@hermes-memory/testkit';
 * import { createRetaindbProvider } from '../src';
 * await runDurabilityWorker(() => createRetaindbProvider({ baseURL: process.env.FAKE_URL }));
 * ```
 */
export async function runDurabilityWorker(
  create: (hermesHome: string) => MemoryProvider | Promise<MemoryProvider>,
  options: DurabilityWorkerOptions = {},
): Promise<never> {
  const [hermesHome, turnsText, label = 'worker'] = options.argv ?? process.argv.slice(2);
  const turns = Number(turnsText);
  if (!hermesHome || !Number.isInteger(turns) || turns < 1) {
    process.stderr.write('usage: durability worker <hermesHome> <turns> [label]\n');
    process.exit(64);
  }
  const provider = await create(hermesHome);
  const extra = (await options.initContext?.(hermesHome)) ?? {};
  await provider.initialize(`durability-${label}`, {
    platform: 'cli',
    env: {},
    logger: silentLogger,
    ...extra,
    hermesHome,
    agentContext: 'primary',
  });
  for (let i = 0; i < turns; i++) {
    const marker = `zq${label}t${i}${randomBytes(4).toString('hex')}`;
    await provider.syncTurn(
      `Durability turn ${i}: the marker ${marker} is moored in the durable harbour.`,
      'Noted.',
      {
        sessionId: `durability-${label}`,
      },
    );
    process.stdout.write(`ack ${marker}\n`);
  }
  // Stay alive (as an agent would) until the check kills this process.
  return new Promise<never>(() => {
    setInterval(() => {}, 1 << 30);
  });
}
