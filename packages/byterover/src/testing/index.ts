/**
 * @hermes-memory/byterover/testing — a contract-faithful fake `brv` (the NDJSON the real CLI
 * prints, its exit codes and a real context tree on disk), published so that code built on the
 * provider can be tested offline too. Needs `@hermes-memory/testkit` (an optional peer
 * dependency: install it as a dev dependency).
 */

export {
  type ContextDoc,
  contextTreeDir,
  readContextDocs,
  writeContextDoc,
} from './context-tree';
export {
  FAKE_BRV_VERSION,
  type FakeBrv,
  type FakeBrvFault,
  type FakeBrvOptions,
  NO_PROVIDER_ERROR,
  notCoveredTemplate,
  startFakeBrv,
} from './fake-brv';
export {
  BRV_SERVICE_URL_VARIABLES,
  type RealBrvEnvironment,
  startRealBrvEnvironment,
} from './real-brv';
