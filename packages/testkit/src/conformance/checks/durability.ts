import { startChildWorker } from '../../helpers/child-worker';
import { ensure } from '../runtime';
import type { CheckDefinition } from './helpers';

/** The `durability` check: acknowledged writes survive kill -9. */
export const DURABILITY: readonly CheckDefinition[] = [
  {
    id: 'durability.kill-9',
    group: 'durability',
    capability: 'durability',
    title: 'every turn syncTurn acknowledged survives the process being killed with SIGKILL',
    async run(runtime) {
      const worker = runtime.harness.durabilityWorker;
      ensure(
        worker !== undefined,
        'the durability check needs harness.durabilityWorker: a script that calls runDurabilityWorker(create) from @hermes-memory/testkit',
      );
      const turns = Math.max(2, runtime.options.durabilityTurns ?? 12);
      const rounds = Math.max(1, runtime.options.durabilityRounds ?? 3);
      const home = runtime.newHome('durable');
      const acknowledged: string[] = [];
      for (let round = 0; round < rounds; round++) {
        // Kill at a different point each round: after the first ack, in the middle, near the end.
        const killAfter = Math.max(1, Math.round(((round + 1) / (rounds + 1)) * turns));
        const child = startChildWorker(worker.script, {
          args: [home.hermesHome, String(turns), `round${round}`],
          ...(worker.execArgv ? { execArgv: worker.execArgv } : {}),
          ...(worker.env ? { env: worker.env } : {}),
        });
        await child.waitForLines(killAfter, (line) => line.startsWith('ack '));
        const exit = await child.kill('SIGKILL');
        const acks = child.lines.filter((l) => l.startsWith('ack ')).map((l) => l.slice(4).trim());
        ensure(
          acks.length >= killAfter,
          `the durability worker acknowledged ${acks.length} of ${killAfter} turns before it ended (exit ${exit.code ?? exit.signal}): ${exit.stderr.trim().slice(-400)}`,
        );
        acknowledged.push(...acks);
      }
      const provider = await runtime.open(home);
      await runtime.settle(provider);
      const lost: string[] = [];
      for (const marker of acknowledged) {
        const found = await runtime.recall(provider, `${marker} durable harbour`, home);
        if (!found.toLowerCase().includes(marker)) lost.push(marker);
      }
      await runtime.shutdown(provider);
      ensure(
        lost.length === 0,
        `${lost.length} of ${acknowledged.length} acknowledged turns were lost after kill -9 (${lost.slice(0, 5).join(', ')}); a durable provider must commit a turn before syncTurn resolves`,
      );
    },
  },
];
