/**
 * The remote providers the bench drives, each against the fake its package ships (`./testing`).
 * Adding one: write `providers/<id>.ts` exporting a `RemoteProviderEntry` (see `mem0.ts`; build the
 * backend with `fakeBackend`), add the package to the bench's dependencies, and add one line below.
 */
import type { RemoteProviderEntry } from '../remote';
import { byterover } from './byterover';
import { hindsight } from './hindsight';
import { hivemind, hivemindPeers100 } from './hivemind';
import { honcho } from './honcho';
import { mem0 } from './mem0';
import { noop } from './noop';
import { openviking } from './openviking';
import { retaindb } from './retaindb';
import { supermemory, supermemoryPerQuery } from './supermemory';

/** In the latency suite and in `remote-run.ts` without arguments. */
// biome-ignore format: one line per provider, so engineers adding one do not conflict
export const REMOTE_PROVIDERS: readonly RemoteProviderEntry[] = [
  mem0,
  honcho,
  supermemory,
  hindsight,
  retaindb,
  hivemind,
  openviking,
  byterover,
  noop,
];

/** Run only when named (`remote-run.ts supermemory-per-query`): comparisons for a decision record. */
// biome-ignore format: one line per entry
export const COMPARISON_PROVIDERS: readonly RemoteProviderEntry[] = [
  supermemoryPerQuery,
  hivemindPeers100,
];
