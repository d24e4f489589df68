import { describeSnapshotChange, ensure, isDeepStrictEqual } from '../runtime';
import {
  type CheckDefinition,
  expectNoThrow,
  NON_PRIMARY,
  schemasAfterInit,
  writeOperations,
} from './helpers';

/** The `context` checks, in the order the suite runs them. */
export const CONTEXT: readonly CheckDefinition[] = [
  {
    id: 'context.writes-observable',
    group: 'context',
    title: 'in the primary context, each operation listed in `writesOn` visibly changes the snapshot',
    async run(runtime) {
      const schemas = await schemasAfterInit(runtime);
      const ops = writeOperations(runtime, schemas, false);
      ensure(
        ops.length > 0,
        'the harness declares no `writesOn` operations, so the non-primary check cannot prove it observes writes; declare writesOn (or skip this check with a reason)',
      );
      for (const op of ops) {
        const home = runtime.newHome('primary');
        const provider = await runtime.open(home, 'primary');
        await runtime.settle(provider);
        const before = await runtime.snapshot(home, provider);
        await expectNoThrow(`${op.label} (primary)`, () => op.run(provider));
        await runtime.settle(provider);
        await runtime.shutdown(provider);
        const after = await runtime.snapshot(home, provider);
        ensure(
          !isDeepStrictEqual(before, after),
          `writesOn says ${op.label} writes in the primary context, but the snapshot did not change after it (even after settle and shutdown); fix writesOn or the harness snapshot`,
        );
      }
    },
  },
  {
    id: 'context.non-primary-readonly',
    group: 'context',
    title:
      'subagent, cron and flush contexts write nothing (syncTurn, onMemoryWrite, onSessionEnd, tools, ...)',
    async run(runtime) {
      const schemas = await schemasAfterInit(runtime);
      for (const agentContext of NON_PRIMARY) {
        for (const op of writeOperations(runtime, schemas, true)) {
          const home = runtime.newHome(agentContext);
          // Seed the home in the primary context first, so "remove" and "replace" paths have something to touch.
          if (runtime.writesOn.syncTurn || runtime.writesOn.memoryWrite) {
            const seeder = await runtime.open(home, 'primary');
            await runtime.seed(seeder, ['The conformance seed entry about the green harbour.'], home);
            await runtime.shutdown(seeder);
          }
          const provider = await runtime.open(home, agentContext);
          await runtime.settle(provider);
          const before = await runtime.snapshot(home, provider);
          try {
            await op.run(provider);
          } catch (error) {
            // Refusing is fine (tools must still answer JSON, which callTool already checked).
            if ((error as Error).name === 'ConformanceFailure') throw error;
          }
          await runtime.settle(provider);
          const middle = await runtime.snapshot(home, provider);
          await runtime.shutdown(provider);
          const after = await runtime.snapshot(home, provider);
          const changed = !isDeepStrictEqual(before, middle) ? middle : after;
          ensure(
            isDeepStrictEqual(before, changed),
            `in the '${agentContext}' context, ${op.label} changed persistent state (${describeSnapshotChange(before, changed)}); non-primary contexts must never write (use canWrite(context.agentContext))`,
          );
        }
      }
    },
  },
];
