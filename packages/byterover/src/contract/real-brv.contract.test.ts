import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RealBrvEnvironment, startRealBrvEnvironment } from '../testing/real-brv';
import { type BrvTarget, brvContractCases } from './brv-contract';

// The contract cases against the real byterover-cli 3.14.0, offline. Opt-in: `pnpm --filter
// @hermes-memory/byterover test:real` installs it into a cache outside the repository (711 MB,
// never a workspace dependency) and sets HERMES_MEMORY_REAL_BRV to its brv. Skipped otherwise.
const brvPath = process.env.HERMES_MEMORY_REAL_BRV ?? '';
const reason = !brvPath
  ? 'HERMES_MEMORY_REAL_BRV is not set: run `pnpm --filter @hermes-memory/byterover test:real` to install byterover-cli@3.14.0 into a cache outside the repository and run this suite'
  : !fs.existsSync(brvPath)
    ? `HERMES_MEMORY_REAL_BRV=${brvPath} does not exist`
    : '';

describe.skipIf(reason !== '')(
  `brv contract: the real byterover-cli${reason ? ` (skipped: ${reason})` : ''}`,
  { timeout: 300_000 },
  () => {
    let real: RealBrvEnvironment;
    let target: BrvTarget;
    const pids = new Set<number>();

    beforeAll(async () => {
      real = await startRealBrvEnvironment({ brvPath });
      const connected = await real.connectLlm();
      if (!connected.stdout.includes('"success":true'))
        throw new Error(`brv providers connect failed: ${connected.stdout}${connected.stderr}`);
      target = {
        label: 'real',
        brvPath,
        env: real.env,
        async withoutLlm(run) {
          return run(real.envWithoutLlm());
        },
        // The first query starts brv's agent process: allow it the time the real CLI needs.
        settings: { queryTimeout: 180, curateTimeout: 240 },
      };
    }, 300_000);

    afterAll(async () => {
      for (const pid of real?.daemonPids() ?? []) pids.add(pid);
      await real?.stop();
      // Every daemon it started is gone (stopped by the pid in its daemon.json).
      for (const pid of pids) {
        let alive = true;
        try {
          process.kill(pid, 0);
          alive = !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
        } catch {
          alive = false;
        }
        expect(alive, `brv daemon ${pid} still running`).toBe(false);
      }
    }, 60_000);

    brvContractCases(() => target);

    it('the fake LLM was asked (brv really used the openai-compatible provider)', () => {
      expect(real.llm.requestsTo('/chat/completions').length).toBeGreaterThan(0);
    });
  },
);
