/**
 * @hermes-memory/retaindb/testing — the fake RetainDB API this package's tests run against,
 * published so that code built on the provider can be tested offline too. Needs
 * `@hermes-memory/testkit` (an optional peer dependency: install it as a dev dependency).
 */
export {
  FAKE_RETAINDB_KEY,
  type FakeRetaindbFile,
  type FakeRetaindbIngest,
  type FakeRetaindbMemory,
  type FakeRetaindbOptions,
  type FakeRetaindbState,
  startFakeRetaindb,
} from './fake-retaindb';
