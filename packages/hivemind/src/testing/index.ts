/**
 * @hermes-memory/hivemind/testing — a protocol-faithful fake Matrix homeserver (the client-server
 * API subset hivemind uses) and a fake of the shared Hermes notebook (search and post), published
 * so that code built on the provider can be tested offline too. Needs `@hermes-memory/testkit` (an optional peer dependency: install it as a dev dependency).
 */
export {
  FAKE_REGISTRATION_TOKEN,
  type FakeHomeserver,
  type FakeHomeserverOptions,
  type FakeMatrixAccount,
  startFakeHomeserver,
} from './fake-homeserver';
export {
  FAKE_NOTEBOOK_KEY,
  type FakeNotebook,
  type FakeNotebookEntry,
  type FakeNotebookOptions,
  type FakeNotebookState,
  startFakeNotebook,
} from './fake-notebook';
export type { FakeHomeserverState, FakeMatrixRoom, FakeMatrixUser, StoredEvent } from './homeserver-state';
