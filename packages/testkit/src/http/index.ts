/**
 * @hermes-memory/testkit/http — the loopback fake-server base every backend's protocol-faithful
 * fake builds on. Loads neither vitest nor the conformance suite.
 */
export { startFakeServer } from './fake-server';
export { encodeSse, intParam, type Page, paginate, reply } from './reply';
export type {
  FakeAuth,
  FakeFault,
  FakeHandler,
  FakeRequest,
  FakeResponse,
  FakeServer,
  FakeServerOptions,
  RecordedRequest,
  SseEvent,
} from './types';
