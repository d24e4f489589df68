/**
 * The vitest functions describeMemoryProvider registers tests with. vitest is an optional peer
 * dependency, and it is loaded only inside a vitest run (vitest sets `VITEST` in its workers):
 * `describe`/`it` work nowhere else, and a program that merely imports the package root (a
 * quickstart starting the fake server) does not pay for loading it. The CommonJS build replaces
 * this module with ./vitest-cjs-shim (see tsup.config.ts): vitest cannot be require()d.
 */
type Vitest = typeof import('vitest');

let vitest: Vitest | null = null;
if (process.env.VITEST) {
  try {
    vitest = await import('vitest');
  } catch {
    vitest = null;
  }
}

function unavailable(): never {
  throw new Error(
    process.env.VITEST
      ? 'describeMemoryProvider needs vitest (an optional peer dependency of @hermes-memory/testkit): install vitest, or use runConformanceSuite() with another runner.'
      : 'describeMemoryProvider registers vitest tests and works only inside a vitest run; elsewhere use runConformanceSuite().',
  );
}

export const describe: Vitest['describe'] = vitest
  ? vitest.describe
  : (unavailable as unknown as Vitest['describe']);
export const it: Vitest['it'] = vitest ? vitest.it : (unavailable as unknown as Vitest['it']);
export const afterAll: Vitest['afterAll'] = vitest
  ? vitest.afterAll
  : (unavailable as unknown as Vitest['afterAll']);
