/**
 * @hermes-memory/supermemory/testing — the fake Supermemory API this package's tests run against,
 * published so that code built on the provider can be tested offline too. Needs
 * `@hermes-memory/testkit` (an optional peer dependency: install it as a dev dependency).
 */
export {
  FAKE_SUPERMEMORY_KEY,
  type FakeSupermemory,
  type FakeSupermemoryDocument,
  type FakeSupermemoryHold,
  type FakeSupermemoryMemory,
  type FakeSupermemoryOptions,
  type FakeSupermemoryState,
  startFakeSupermemory,
} from './fake-supermemory';
