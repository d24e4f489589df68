import { asyncIsAvailable } from './async-is-available';
import { badName } from './bad-name';
import { badToolName } from './bad-tool-name';
import { blindSnapshot } from './blind-snapshot';
import { blockingSyncTurn } from './blocking-sync-turn';
import { claimsToolsWithoutTools } from './claims-tools-without-tools';
import { doubleShutdownThrows } from './double-shutdown-throws';
import { duplicateToolNames } from './duplicate-tool-names';
import { fetchInIsAvailable } from './fetch-in-is-available';
import { invalidSchema } from './invalid-schema';
import { ioInIsAvailable } from './io-in-is-available';
import { losesWritesOnShutdown } from './loses-writes-on-shutdown';
import { mirrorIgnoresRemove } from './mirror-ignores-remove';
import { nonJsonResult } from './non-json-result';
import { prefetchDoesIo } from './prefetch-does-io';
import { prefetchEmpty } from './prefetch-empty';
import { prototypePollution } from './prototype-pollution';
import { reservedToolName } from './reserved-tool-name';
import { syncIoInSyncTurn } from './sync-io-in-sync-turn';
import { throwsAfterShutdown } from './throws-after-shutdown';
import { throwsOnBadArgs } from './throws-on-bad-args';
import { throwsOnUnknownTool } from './throws-on-unknown-tool';
import type { BrokenCase } from './types';
import { unqueuedSyncTurn } from './unqueued-sync-turn';
import { writesInSubagent } from './writes-in-subagent';
import { wrongHookResult } from './wrong-hook-result';
import { wrongTypesCrash } from './wrong-types-crash';

/** Every broken provider, by file name. */
export const BROKEN: Record<string, BrokenCase> = {
  'async-is-available': asyncIsAvailable,
  'bad-name': badName,
  'bad-tool-name': badToolName,
  'blind-snapshot': blindSnapshot,
  'blocking-sync-turn': blockingSyncTurn,
  'claims-tools-without-tools': claimsToolsWithoutTools,
  'double-shutdown-throws': doubleShutdownThrows,
  'duplicate-tool-names': duplicateToolNames,
  'fetch-in-is-available': fetchInIsAvailable,
  'invalid-schema': invalidSchema,
  'io-in-is-available': ioInIsAvailable,
  'loses-writes-on-shutdown': losesWritesOnShutdown,
  'mirror-ignores-remove': mirrorIgnoresRemove,
  'non-json-result': nonJsonResult,
  'prefetch-does-io': prefetchDoesIo,
  'prefetch-empty': prefetchEmpty,
  'prototype-pollution': prototypePollution,
  'reserved-tool-name': reservedToolName,
  'sync-io-in-sync-turn': syncIoInSyncTurn,
  'throws-after-shutdown': throwsAfterShutdown,
  'throws-on-bad-args': throwsOnBadArgs,
  'throws-on-unknown-tool': throwsOnUnknownTool,
  'unqueued-sync-turn': unqueuedSyncTurn,
  'writes-in-subagent': writesInSubagent,
  'wrong-hook-result': wrongHookResult,
  'wrong-types-crash': wrongTypesCrash,
};
