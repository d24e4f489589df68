import { acksBeforeWriting } from './acks-before-writing';
import { asyncIsAvailable } from './async-is-available';
import { awaitsFetchInSyncTurn } from './awaits-fetch-in-sync-turn';
import { badName } from './bad-name';
import { badToolName } from './bad-tool-name';
import { blindSnapshot } from './blind-snapshot';
import { blockingSyncTurn } from './blocking-sync-turn';
import { buffersButDoesIo } from './buffers-but-does-io';
import { claimsToolsWithoutTools } from './claims-tools-without-tools';
import { currentQueryHangs } from './current-query-hangs';
import { doubleShutdownThrows } from './double-shutdown-throws';
import { duplicateToolNames } from './duplicate-tool-names';
import { fetchInIsAvailable } from './fetch-in-is-available';
import { ignoresTurnStart } from './ignores-turn-start';
import { invalidSchema } from './invalid-schema';
import { ioInIsAvailable } from './io-in-is-available';
import { losesWritesOnShutdown } from './loses-writes-on-shutdown';
import { mirrorIgnoresRemove } from './mirror-ignores-remove';
import { nonJsonResult } from './non-json-result';
import { prefetchDoesIo } from './prefetch-does-io';
import { prefetchEmpty } from './prefetch-empty';
import { prefetchWaitsOnBackend } from './prefetch-waits-on-backend';
import { prototypePollution } from './prototype-pollution';
import { rawFenceInRecall } from './raw-fence-in-recall';
import { remoteHarnessWithoutFaults } from './remote-harness-without-faults';
import { reservedToolName } from './reserved-tool-name';
import { shutdownIgnoresDeadline } from './shutdown-ignores-deadline';
import { shutdownWaitsForBackend } from './shutdown-waits-for-backend';
import { storesBlockedPayloads } from './stores-blocked-payloads';
import { syncIoInSyncTurn } from './sync-io-in-sync-turn';
import { syncRejectsOnBackendError } from './sync-rejects-on-backend-error';
import { throwsAfterShutdown } from './throws-after-shutdown';
import { throwsOnBadArgs } from './throws-on-bad-args';
import { throwsOnUnknownTool } from './throws-on-unknown-tool';
import { toolThrowsOnBackendError } from './tool-throws-on-backend-error';
import type { BrokenCase } from './types';
import { unqueuedSyncTurn } from './unqueued-sync-turn';
import { writesInSubagent } from './writes-in-subagent';
import { wrongHookResult } from './wrong-hook-result';
import { wrongTypesCrash } from './wrong-types-crash';

/** Every broken provider, by file name. */
export const BROKEN: Record<string, BrokenCase> = {
  'acks-before-writing': acksBeforeWriting,
  'async-is-available': asyncIsAvailable,
  'awaits-fetch-in-sync-turn': awaitsFetchInSyncTurn,
  'bad-name': badName,
  'bad-tool-name': badToolName,
  'blind-snapshot': blindSnapshot,
  'blocking-sync-turn': blockingSyncTurn,
  'buffers-but-does-io': buffersButDoesIo,
  'claims-tools-without-tools': claimsToolsWithoutTools,
  'current-query-hangs': currentQueryHangs,
  'double-shutdown-throws': doubleShutdownThrows,
  'duplicate-tool-names': duplicateToolNames,
  'fetch-in-is-available': fetchInIsAvailable,
  'ignores-turn-start': ignoresTurnStart,
  'invalid-schema': invalidSchema,
  'io-in-is-available': ioInIsAvailable,
  'loses-writes-on-shutdown': losesWritesOnShutdown,
  'mirror-ignores-remove': mirrorIgnoresRemove,
  'non-json-result': nonJsonResult,
  'prefetch-does-io': prefetchDoesIo,
  'prefetch-empty': prefetchEmpty,
  'prefetch-waits-on-backend': prefetchWaitsOnBackend,
  'prototype-pollution': prototypePollution,
  'raw-fence-in-recall': rawFenceInRecall,
  'remote-harness-without-faults': remoteHarnessWithoutFaults,
  'reserved-tool-name': reservedToolName,
  'shutdown-ignores-deadline': shutdownIgnoresDeadline,
  'shutdown-waits-for-backend': shutdownWaitsForBackend,
  'stores-blocked-payloads': storesBlockedPayloads,
  'sync-io-in-sync-turn': syncIoInSyncTurn,
  'sync-rejects-on-backend-error': syncRejectsOnBackendError,
  'throws-after-shutdown': throwsAfterShutdown,
  'throws-on-bad-args': throwsOnBadArgs,
  'throws-on-unknown-tool': throwsOnUnknownTool,
  'tool-throws-on-backend-error': toolThrowsOnBackendError,
  'unqueued-sync-turn': unqueuedSyncTurn,
  'writes-in-subagent': writesInSubagent,
  'wrong-hook-result': wrongHookResult,
  'wrong-types-crash': wrongTypesCrash,
};
