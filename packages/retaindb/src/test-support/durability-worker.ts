/**
 * The child process of the kill -9 tests: the conformance kit's `runDurabilityWorker` (FAKE_URL
 * names the parent's fake RetainDB). Run with `node --import tsx`.
 */
import { runDurabilityWorker } from '@hermes-memory/testkit';
import { createRetaindbProvider } from '../index';
import { FAKE_RETAINDB_KEY } from '../testing';

await runDurabilityWorker(() =>
  createRetaindbProvider({
    baseURL: process.env.FAKE_URL,
    apiKey: FAKE_RETAINDB_KEY,
    backoffMs: 50,
    maxBackoffMs: 200,
  }),
);
