/**
 * @hermes-memory/openviking/testing — the fake OpenViking server this package's tests run against,
 * published so that code built on the provider can be tested offline too. Needs
 * `@hermes-memory/testkit` (an optional peer dependency: install it as a dev dependency).
 */
export {
  FAKE_OPENVIKING_KEY,
  FAKE_OPENVIKING_VERSION,
  type FakeOpenvikingOptions,
  startFakeOpenviking,
} from './fake-openviking';
export type { FakeNode, FakeOpenvikingState, FakeSession, FakeSessionMessage } from './viking-tree';
