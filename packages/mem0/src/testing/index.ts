/**
 * `@hermes-memory/mem0/testing`: protocol-faithful fakes of the Mem0 Platform API and of a
 * self-hosted Mem0 server, on 127.0.0.1, for tests and offline demos, built on the testkit's
 * fake-server base.
 */

export type { HoldControls } from './holds';
export type { FakeHistoryEntry, FakeMem0State, FakeMemory } from './memory-store';
export { type FakeMem0Platform, type FakeMem0PlatformOptions, startFakeMem0Platform } from './platform';
export { type FakeMem0Server, type FakeMem0ServerOptions, startFakeMem0Server } from './self-hosted';
