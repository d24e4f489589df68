// The vitest functions describeMemoryProvider registers tests with. The CommonJS build replaces
// this module with ./vitest-cjs-shim (see tsup.config.ts): vitest cannot be require()d.
export { afterAll, describe, it } from 'vitest';
