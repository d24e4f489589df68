import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { readFileNoFollow, writeFileAtomic } from '@hermes-memory/core';

/**
 * Pending-session markers: `<home>/openviking/pending_sessions/<sid>.json` =
 * `{session_id, owner_run_id}` (0600), written when a session gets its first turn and removed when
 * it is committed. A marker whose owner run is gone names a session a crash left uncommitted.
 */
export interface PendingMarker {
  session_id: string;
  /** Absent in markers of older versions (recovered under the legacy lock). */
  owner_run_id?: string;
  file: string;
}

export function markersDir(hermesHome: string): string {
  return path.join(hermesHome, 'openviking', 'pending_sessions');
}

/** A file name for a session id: itself when plain, else a hash (the id is kept inside). */
export function markerFile(hermesHome: string, sessionId: string): string {
  const name =
    /^[A-Za-z0-9._-]{1,120}$/.test(sessionId) && !sessionId.startsWith('.')
      ? sessionId
      : `sid-${crypto.createHash('sha256').update(sessionId).digest('hex').slice(0, 24)}`;
  return path.join(markersDir(hermesHome), `${name}.json`);
}

export function writeMarker(hermesHome: string, sessionId: string, ownerRunId: string): void {
  const file = markerFile(hermesHome, sessionId);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileAtomic(file, `${JSON.stringify({ session_id: sessionId, owner_run_id: ownerRunId })}\n`, {
    mode: 0o600,
  });
}

export function removeMarker(hermesHome: string, sessionId: string): void {
  try {
    fs.unlinkSync(markerFile(hermesHome, sessionId));
  } catch {}
}

export function listMarkers(hermesHome: string): PendingMarker[] {
  const dir = markersDir(hermesHome);
  let names: string[];
  try {
    names = fs
      .readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort();
  } catch {
    return [];
  }
  const out: PendingMarker[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    try {
      const buf = readFileNoFollow(file);
      if (!buf) continue;
      const data = JSON.parse(new TextDecoder().decode(buf)) as Record<string, unknown>;
      if (typeof data.session_id !== 'string' || data.session_id === '') continue;
      out.push({
        session_id: data.session_id,
        ...(typeof data.owner_run_id === 'string' && data.owner_run_id !== ''
          ? { owner_run_id: data.owner_run_id }
          : {}),
        file,
      });
    } catch {}
  }
  return out;
}
