import { afterAll, beforeAll, describe } from 'vitest';
import { type FakeBrv, startFakeBrv } from '../testing';
import { type BrvTarget, brvContractCases } from './brv-contract';

// The contract cases against the fake brv: the default, offline suite. The same cases run against
// the real byterover-cli in real-brv.contract.test.ts (pnpm --filter @hermes-memory/byterover test:real).
let brv: FakeBrv;
let target: BrvTarget;
beforeAll(async () => {
  brv = await startFakeBrv();
  target = {
    label: 'fake',
    brvPath: brv.path,
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    async withoutLlm(run) {
      brv.setProviderConnected(false);
      try {
        return await run(target.env);
      } finally {
        brv.setProviderConnected(true);
      }
    },
    settings: {},
  };
});
afterAll(() => brv.close());

describe('brv contract: the fake brv', () => {
  brvContractCases(() => target);
});
