/**
 * Worker-thread side of the bulk encoder (`bulk-encoder.ts`): claims chunks of a round, encodes
 * their HRR vectors with the same code as the main thread and writes the blobs into shared memory.
 */
import { parentPort } from 'node:worker_threads';
import { encodeChunks, type EncodeRound } from './bulk-encoder';

parentPort?.on('message', (round: EncodeRound) => {
  encodeChunks(round);
});
