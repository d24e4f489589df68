/**
 * Stand-in for `vitest` in the CommonJS build: vitest cannot be `require()`d, and vitest always
 * loads test files as ES modules (so it picks the ESM build of this package). Everything except
 * `describeMemoryProvider` works from CommonJS; that one explains itself instead of crashing on load.
 */
function unavailable(): never {
  throw new Error(
    'describeMemoryProvider needs vitest, which is ESM-only: import @hermes-memory/testkit/vitest from an ES module test file, or use runConformanceSuite() from CommonJS.',
  );
}

export const describe = unavailable as unknown as typeof import('vitest').describe;
export const it = unavailable as unknown as typeof import('vitest').it;
export const afterAll = unavailable as unknown as typeof import('vitest').afterAll;
