/**
 * @hermes-memory/testkit/vitest — `describeMemoryProvider`: the conformance suite registered as
 * vitest tests. The only entry that loads vitest (an optional peer dependency).
 */
export { describeMemoryProvider } from './conformance/describe';
