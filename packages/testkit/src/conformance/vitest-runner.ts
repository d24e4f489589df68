/**
 * The vitest functions describeMemoryProvider registers tests with. vitest is an optional peer
 * dependency: it is loaded when present, so the fake server and the plain check runner work in
 * any Node program without it. The CommonJS build replaces this module with ./vitest-cjs-shim
 * (see tsup.config.ts): vitest cannot be require()d.
 */
type Vitest = typeof import('vitest');

let vitest: Vitest | null = null;
try {
  vitest = await import('vitest');
} catch {
  vitest = null;
}

function unavailable(): never {
  throw new Error(
    'describeMemoryProvider needs vitest (an optional peer dependency of @hermes-memory/testkit): install vitest, or use runConformanceSuite() with another runner.',
  );
}

export const describe: Vitest['describe'] = vitest
  ? vitest.describe
  : (unavailable as unknown as Vitest['describe']);
export const it: Vitest['it'] = vitest ? vitest.it : (unavailable as unknown as Vitest['it']);
export const afterAll: Vitest['afterAll'] = vitest
  ? vitest.afterAll
  : (unavailable as unknown as Vitest['afterAll']);
