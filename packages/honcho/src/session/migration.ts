/**
 * The one-time move of the builtin memory files into Honcho: MEMORY.md and USER.md to the user
 * peer, SOUL.md to the AI peer, each wrapped in a "prior memory" envelope. Uploads are recorded in
 * `state/honcho_migration.json` (atomic, 0600) in the Python agent's ledger, so a home used by both
 * never uploads a file twice: `targets[<target_key>].sources[<source_key>].files[<name>] = true`,
 * where the target (endpoint, workspace, both peers) is hashed from its canonical JSON and the
 * source is the directory the file lives in. Our older `uploaded` entries still count as done.
 * Unreadable or unknown state fails closed (nothing uploaded): overwriting it could upload again.
 * As in the reference, the uploads go into a marker session per target whose messages carry each
 * file's `migration_id`, looked up before each upload: a lost ledger write never uploads twice.
 * The whole migration runs under the reference's lock — `flock` on
 * `state/honcho_migration.json.lock`, 5 s, skipped (until the next session) when held longer. A
 * file the write scanner blocks is not uploaded (nor recorded, so it goes up once fixed).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { ensureDir, readJsonConfig, withFileLock, writeJsonConfig } from '@hermes-memory/core';
import type { HonchoBackend } from '../client/backend';
import { isAuthFailure } from '../client/transport';
import { guardWrite } from '../guard';

export interface MigrationSource {
  /** Path relative to HERMES_HOME; its directory is the ledger's source, its base name the file key. */
  file: string;
  /** The name Honcho stores it under. */
  uploadAs: string;
  peer: 'user' | 'ai';
  description: string;
}

export const MIGRATION_SOURCES: readonly MigrationSource[] = [
  {
    file: 'memories/MEMORY.md',
    uploadAs: 'consolidated_memory.md',
    peer: 'user',
    description: 'Long-term agent notes and preferences',
  },
  {
    file: 'memories/USER.md',
    uploadAs: 'user_profile.md',
    peer: 'user',
    description: 'User profile and preferences',
  },
  {
    file: 'SOUL.md',
    uploadAs: 'agent_soul.md',
    peer: 'ai',
    description: 'Agent persona and identity configuration',
  },
];

export const LEDGER_FILE = path.join('state', 'honcho_migration.json');

/** The reference's wait for the ledger lock; past it the migration is skipped until the next session. */
export const MIGRATION_LOCK_TIMEOUT_MS = 5_000;

/** Where the uploads go, as the reference keys its ledger (`endpoint` is the effective base URL). */
export interface MigrationTarget {
  endpoint: string;
  workspace_id: string;
  user_peer_id: string;
  ai_peer_id: string;
}

/** Python's `json.dumps(value, sort_keys=True, separators=(",", ":"))` (ASCII-escaped) for flat objects. */
export function canonicalJson(value: Readonly<Record<string, string | number>>): string {
  const body = Object.keys(value)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${JSON.stringify(value[key])}`)
    .join(',');
  return `{${body}}`.replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

export const targetKey = (target: MigrationTarget): string => sha256(canonicalJson({ ...target }));
export const sourceKey = (sourcePath: string): string => sha256(sourcePath);

/** Thrown when the ledger cannot be read or has a shape we do not know: nothing is uploaded. */
export class MigrationStateError extends Error {
  override name = 'MigrationStateError';
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The ledger (every key kept), or a MigrationStateError when the reference would refuse it too. */
function readLedger(file: string): Json {
  const read = readJsonConfig(file);
  if (read.status === 'missing') return { version: 1, targets: {} };
  if (read.status === 'invalid')
    throw new MigrationStateError(`Honcho migration state is unreadable: ${read.error}`);
  const data = read.data;
  // Our v1 ledger had `uploaded` and no `targets`: adopt it (its entries stay and still count).
  if (data.version === 1 && data.targets === undefined && isObject(data.uploaded))
    return { ...data, targets: {} };
  if (data.version !== 1 || !isObject(data.targets))
    throw new MigrationStateError(`Honcho migration state has an unsupported format: ${file}`);
  return data;
}

/** `targets[tk].sources[sk].files`, created as the reference creates them; a wrong shape fails closed. */
function completedFiles(ledger: Json, target: MigrationTarget, sourcePath: string): Json {
  const tk = targetKey(target);
  const steps: Array<[string, () => Json, string]> = [
    [tk, () => ({ ...target, sources: {} }), `target ${tk}`],
    ['sources', () => ({}), `target ${tk}`],
    [sourceKey(sourcePath), () => ({ path: sourcePath, files: {} }), `source ${sourcePath}`],
    ['files', () => ({}), `source ${sourcePath}`],
  ];
  let current = ledger.targets as Json;
  for (const [key, make, what] of steps) {
    if (current[key] === undefined && key !== 'files') current[key] = make();
    const next = current[key];
    if (!isObject(next)) throw new MigrationStateError(`Honcho migration ${what} state is invalid`);
    current = next;
  }
  return current;
}

/** Python's `Path(dir).resolve()`: symlinks followed, absolute. */
function resolveDir(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}

/** The reference's envelope, word for word, so both agents' uploads read alike to Honcho. */
export function wrapPriorMemory(source: MigrationSource, text: string): string {
  return (
    '<prior_memory_file>\n<context>\n' +
    'This file was consolidated from local conversations BEFORE Honcho was activated.\n' +
    `${source.description}. Treat as foundational context for this user.\n` +
    `</context>\n\n${text.trim()}\n</prior_memory_file>\n`
  );
}

/** The marker session of a target (88 characters: under Honcho's 100-character cap). */
export const markerSessionId = (target: string): string => `hermes-memory-migration-${target}`;

/** What the migration does on Honcho; each call rejects on failure (the caller owns deadlines). */
export interface MigrationRemote {
  /** Get-or-create the target's marker session with both peers; once, before the first lookup. */
  openMarker(sessionId: string, metadata: Record<string, string>): Promise<void>;
  /** Whether the marker session holds a message whose metadata carries this `migration_id`. */
  hasUpload(sessionId: string, migrationId: string): Promise<boolean>;
  /** Upload a file as messages of `peerId` into the marker session. */
  upload(
    sessionId: string,
    peerId: string,
    fileName: string,
    text: string,
    metadata: Record<string, unknown>,
  ): Promise<void>;
  /** An error after which nothing more is tried (a refused key): the migration stops there. */
  isFatal?(error: unknown): boolean;
}

export interface MigrationContext {
  hermesHome: string;
  /** The effective base URL requests go to (part of the ledger's target). */
  endpoint: string;
  workspaceId: string;
  userPeerId: string;
  aiPeerId: string;
  remote: MigrationRemote;
}

export interface MigrationResult {
  /** Files uploaded now (their `uploadAs` names). */
  uploaded: string[];
  /** Files found already uploaded in the marker session (a lost ledger write) and recorded now. */
  reconciled: string[];
  /** Files the write scanner refused, with its reason (left for a later session). */
  refused: Array<{ file: string; error: string }>;
  /** Files not done because a call or the ledger write failed (tried again next session). */
  failed: Array<{ file: string; error: string }>;
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Upload what is not in the ledger yet, under the ledger's lock, as the reference does: a file in
 * the ledger is skipped with no call; otherwise the target's marker session is asked for a message
 * carrying the file's `migration_id` — found, the upload happened and only its ledger write was
 * lost (a crash, a full disk, another machine on the same workspace), so it is recorded, not
 * repeated; not found, the file is uploaded into the marker session with that id in its metadata
 * and then recorded. A failed lookup skips the upload (an unknown answer must not risk a second
 * copy); a failed upload leaves the file for next time; a fatal error or a failed ledger write
 * stops the run. A lock held elsewhere past `lockTimeoutMs` rejects with core's `LockTimeoutError`,
 * a ledger we cannot read or do not know with `MigrationStateError` (before any call).
 */
export async function migrateMemoryFiles(
  ctx: MigrationContext,
  lockTimeoutMs = MIGRATION_LOCK_TIMEOUT_MS,
): Promise<MigrationResult> {
  const ledgerPath = path.join(ctx.hermesHome, LEDGER_FILE);
  ensureDir(path.dirname(ledgerPath), { root: ctx.hermesHome });
  return withFileLock(`${ledgerPath}.lock`, () => migrateLocked(ctx, ledgerPath), {
    timeoutMs: lockTimeoutMs,
    description: 'Honcho migration lock',
  });
}

async function migrateLocked(ctx: MigrationContext, ledgerPath: string): Promise<MigrationResult> {
  const target: MigrationTarget = {
    endpoint: ctx.endpoint,
    workspace_id: ctx.workspaceId,
    user_peer_id: ctx.userPeerId,
    ai_peer_id: ctx.aiPeerId,
  };
  const tk = targetKey(target);
  const marker = markerSessionId(tk);
  const ledger = readLedger(ledgerPath);
  const legacy = isObject(ledger.uploaded) ? ledger.uploaded : {};
  const result: MigrationResult = { uploaded: [], reconciled: [], refused: [], failed: [] };
  let markerOpen = false;
  /** Record a file as done; false (and the run stops) when the ledger cannot be written. */
  const record = (files: Json, fileKey: string, file: string): boolean => {
    files[fileKey] = true;
    try {
      writeJsonConfig(ledgerPath, ledger);
      return true;
    } catch (error) {
      result.failed.push({ file, error: `done, but the ledger could not be written: ${describe(error)}` });
      return false;
    }
  };
  for (const source of MIGRATION_SOURCES) {
    const file = path.join(ctx.hermesHome, source.file);
    if (!existsSync(file)) continue;
    const sourcePath = resolveDir(path.dirname(file));
    const fileKey = path.basename(source.file);
    const files = completedFiles(ledger, target, sourcePath);
    const peerId = source.peer === 'user' ? ctx.userPeerId : ctx.aiPeerId;
    if (files[fileKey] === true) continue;
    if (legacy[`${ctx.workspaceId}/${peerId}/${source.uploadAs}`]) {
      // Uploaded by an earlier version of this package: recorded where the Python agent looks too.
      if (!record(files, fileKey, source.file)) break;
      continue;
    }
    const text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
    if (!text.trim()) continue;
    const guarded = guardWrite(text);
    if (!guarded.ok) {
      result.refused.push({ file: source.file, error: guarded.error });
      continue;
    }
    const id = migrationId(tk, sourceKey(sourcePath), fileKey);
    let found: boolean;
    try {
      if (!markerOpen) {
        await ctx.remote.openMarker(marker, { source: 'hermes_memory_migration', target_key: tk });
        markerOpen = true;
      }
      found = await ctx.remote.hasUpload(marker, id);
    } catch (error) {
      result.failed.push({ file: source.file, error: `not uploaded, the lookup failed: ${describe(error)}` });
      if (ctx.remote.isFatal?.(error)) break;
      continue;
    }
    if (found) {
      result.reconciled.push(source.uploadAs);
      if (!record(files, fileKey, source.file)) break;
      continue;
    }
    try {
      await ctx.remote.upload(marker, peerId, source.uploadAs, wrapPriorMemory(source, guarded.text), {
        source: 'local_memory',
        original_file: fileKey,
        target_peer: source.peer,
        migration_id: id,
      });
    } catch (error) {
      result.failed.push({ file: source.file, error: `upload failed: ${describe(error)}` });
      if (ctx.remote.isFatal?.(error)) break;
      continue;
    }
    result.uploaded.push(source.uploadAs);
    if (!record(files, fileKey, source.file)) break;
  }
  return result;
}

/** The reference's per-file id (in the upload's metadata), so a remote copy can be recognised. */
export function migrationId(target: string, source: string, filename: string): string {
  return sha256(canonicalJson({ filename, source, target, version: 1 }));
}

/**
 * The remote side through the official SDK. `optOut` carries the observation the user turned off
 * for each peer (config, or this session's server flags): the marker session never turns it back on.
 */
export function sdkMigrationRemote(
  backend: HonchoBackend,
  peers: { userPeerId: string; aiPeerId: string; optOut: { user: boolean; ai: boolean } },
  signal?: AbortSignal,
): MigrationRemote {
  return {
    openMarker: (sessionId, metadata) =>
      backend.openSideSession(
        sessionId,
        metadata,
        [
          { id: peers.userPeerId, optOut: peers.optOut.user },
          { id: peers.aiPeerId, optOut: peers.optOut.ai },
        ],
        signal,
      ),
    hasUpload: (sessionId, id) => backend.hasMessageWith(sessionId, { migration_id: id }, signal),
    upload: (sessionId, peerId, fileName, text, metadata) =>
      backend.uploadText(sessionId, peerId, fileName, text, metadata, signal),
    isFatal: isAuthFailure,
  };
}
