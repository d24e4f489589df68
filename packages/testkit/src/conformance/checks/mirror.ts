import { ensure, mirroredActions } from '../runtime';
import { type CheckDefinition, expectNoThrow, token } from './helpers';

/** The `mirror` checks, in the order the suite runs them. */
export const MIRROR: readonly CheckDefinition[] = [
  {
    id: 'mirror.add-replace-remove',
    group: 'mirror',
    capability: 'mirrors',
    title:
      'onMemoryWrite keeps the mirrored entries consistent for the claimed actions (add, replace, remove)',
    async run(runtime) {
      const actions = mirroredActions(runtime.capabilities);
      ensure(
        actions.includes('add'),
        `a mirrors claim must include 'add' (got ${JSON.stringify(runtime.capabilities.mirrors)}): a mirror that cannot add mirrors nothing`,
      );
      const home = runtime.newHome();
      const provider = await runtime.open(home);
      const first = token();
      const original = `User prefers the ${first} editor for the blue lighthouse project.`;
      const find = async (marker: string) =>
        (await runtime.recall(provider, `${marker} editor blue lighthouse`, home))
          .toLowerCase()
          .includes(marker);

      await expectNoThrow("onMemoryWrite('add')", () =>
        provider.onMemoryWrite('add', 'user', original, { writeOrigin: 'conformance' }),
      );
      await runtime.settle(provider);
      ensure(await find(first), `after onMemoryWrite('add'), the added entry ('${first}') is not found`);
      let current = { marker: first, text: original };

      if (actions.includes('replace')) {
        const second = token();
        const replacement = `User switched to the ${second} editor for the blue lighthouse project.`;
        await expectNoThrow("onMemoryWrite('replace')", () =>
          provider.onMemoryWrite('replace', 'user', replacement, {
            writeOrigin: 'conformance',
            oldText: `the ${first} editor`,
            previousContent: original,
          }),
        );
        await runtime.settle(provider);
        ensure(await find(second), `after onMemoryWrite('replace'), the new text ('${second}') is not found`);
        ensure(
          !(await find(first)),
          `after onMemoryWrite('replace'), the replaced text ('${first}') is still found`,
        );
        current = { marker: second, text: replacement };
      }

      if (actions.includes('remove')) {
        const { marker, text } = current;
        await expectNoThrow("onMemoryWrite('remove')", () =>
          provider.onMemoryWrite('remove', 'user', text, {
            writeOrigin: 'conformance',
            oldText: `the ${marker} editor`,
            previousContent: text,
          }),
        );
        await runtime.settle(provider);
        ensure(
          !(await find(marker)),
          `after onMemoryWrite('remove'), the removed entry ('${marker}') is still found`,
        );
      }
      await runtime.shutdown(provider);
    },
  },
];
