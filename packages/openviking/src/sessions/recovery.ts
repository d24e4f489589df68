import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeError, type Logger, processAlive, writeNewFile } from '@hermes-memory/core';
import type { OpenvikingClient } from '../client';
import { listMarkers, removeMarker, writeMarker } from './markers';
import { removeRunLock, runState, runsDir, type TryFlock } from './run-lock';
import { isNotFound } from './session-sync';

export interface RecoveryReport {
  committed: string[];
  /** The server no longer knows them (404): their markers were dropped. */
  dropped: string[];
  /** Owned by a live run, or the commit failed (kept for a later start). */
  kept: string[];
}

/**
 * Commit the sessions a crashed run left pending: markers whose owner run is dead (its lock file
 * is gone or its flock free). Each is claimed first (the marker is rewritten with this
 * run's id, so a second recovering run leaves it alone), then committed; 404 drops it. Markers of
 * older versions without an owner are recovered under `runs/legacy-recovery.lock`.
 */
export async function recoverOrphanedSessions(options: {
  hermesHome: string;
  runId: string;
  client: OpenvikingClient;
  logger: Logger;
  signal?: AbortSignal;
  /** Default core's `tryHoldFlock` (see `TryFlock`). */
  tryFlock?: TryFlock;
}): Promise<RecoveryReport> {
  const { hermesHome, runId, client, logger, tryFlock } = options;
  const report: RecoveryReport = { committed: [], dropped: [], kept: [] };
  const deadOwners = new Set<string>();
  let legacyLock: string | null = null;
  try {
    for (const marker of listMarkers(hermesHome)) {
      const sid = marker.session_id;
      if (marker.owner_run_id === runId) continue;
      if (marker.owner_run_id) {
        if ((await runState(hermesHome, marker.owner_run_id, tryFlock)) !== 'dead') {
          report.kept.push(sid);
          continue;
        }
        deadOwners.add(marker.owner_run_id);
      } else {
        legacyLock ??= takeLegacyLock(hermesHome);
        if (legacyLock === '') {
          report.kept.push(sid);
          continue;
        }
      }
      writeMarker(hermesHome, sid, runId);
      try {
        await client.commit(sid, options.signal ? { signal: options.signal } : {});
        removeMarker(hermesHome, sid);
        report.committed.push(sid);
      } catch (error) {
        if (isNotFound(error)) {
          removeMarker(hermesHome, sid);
          report.dropped.push(sid);
        } else {
          report.kept.push(sid);
          logger.warn(
            `OpenViking: recovering session ${sid} failed (kept for a later start): ${describeError(error)}`,
          );
        }
      }
    }
  } finally {
    if (legacyLock) fs.rmSync(legacyLock, { force: true });
  }
  for (const owner of deadOwners) await removeRunLock(hermesHome, owner, tryFlock);
  if (report.committed.length > 0)
    logger.info(`OpenViking: committed ${report.committed.length} session(s) a previous run left pending.`);
  return report;
}

/** The legacy recovery lock's path when taken, '' when another live run holds it. */
function takeLegacyLock(hermesHome: string): string {
  const file = path.join(runsDir(hermesHome), 'legacy-recovery.lock');
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeNewFile(file, JSON.stringify({ pid: process.pid, host: os.hostname() }), { durable: false });
      return file;
    } catch {
      let holder: { pid?: number; host?: string } = {};
      try {
        holder = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof holder;
      } catch {}
      const alive =
        holder.host !== undefined && holder.host !== os.hostname() ? true : processAlive(holder.pid ?? -1);
      if (alive) return '';
      fs.rmSync(file, { force: true });
    }
  }
  return '';
}
