/**
 * The one-time move of the builtin memory files into Honcho: MEMORY.md and USER.md to the user
 * peer, SOUL.md to the AI peer, each wrapped in a "prior memory" envelope. Each upload is recorded
 * in `state/honcho_migration.json` (atomic, 0600) by workspace, peer and file, so a restart, a new
 * session or a second process never uploads the same file to the same peer twice. The whole
 * migration runs under the reference's lock — `flock` on `state/honcho_migration.json.lock`, 5 s,
 * skipped (until the next session) when another process holds it longer — and keys of the ledger
 * we do not write (a Python Hermes's `targets`) are kept. A file the write
 * scanner blocks is not uploaded (nor recorded, so it goes up once fixed): Honcho would recall it.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ensureDir, readJsonConfig, withFileLock, writeFileAtomic } from '@hermes-memory/core';
import { guardWrite } from '../guard';

export interface MigrationSource {
  /** Path relative to HERMES_HOME. */
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
    description: 'long-term memory notes',
  },
  { file: 'memories/USER.md', uploadAs: 'user_profile.md', peer: 'user', description: 'user profile' },
  { file: 'SOUL.md', uploadAs: 'agent_soul.md', peer: 'ai', description: 'agent persona' },
];

export const LEDGER_FILE = path.join('state', 'honcho_migration.json');

/** The reference's wait for the ledger lock; past it the migration is skipped until the next session. */
export const MIGRATION_LOCK_TIMEOUT_MS = 5_000;

interface Ledger {
  [key: string]: unknown;
  version: 1;
  /** `<workspace>/<peer>/<uploadAs>` → ISO time of the upload. */
  uploaded: Record<string, string>;
}

/** The ledger, every key kept (the Python agent records its uploads under `targets`). */
function readLedger(file: string): Ledger {
  const read = readJsonConfig(file);
  const data = read.status === 'ok' ? read.data : {};
  const uploaded =
    typeof data.uploaded === 'object' && data.uploaded !== null
      ? (data.uploaded as Record<string, string>)
      : {};
  return { ...data, version: 1, uploaded: { ...uploaded } };
}

export function wrapPriorMemory(source: MigrationSource, text: string): string {
  return `<prior_memory_file name="${source.uploadAs}" description="${source.description}">\nThis is memory the agent kept in a local file before Honcho was enabled.\n\n${text.trim()}\n</prior_memory_file>\n`;
}

export interface MigrationContext {
  hermesHome: string;
  workspaceId: string;
  userPeerId: string;
  aiPeerId: string;
  now: () => Date;
  upload: (
    peerId: string,
    fileName: string,
    text: string,
    metadata: Record<string, unknown>,
  ) => Promise<void>;
}

export interface MigrationResult {
  /** Files uploaded now (their `uploadAs` names). */
  uploaded: string[];
  /** Files the write scanner refused, with its reason (left for a later session). */
  refused: Array<{ file: string; error: string }>;
}

/**
 * Upload what is not in the ledger yet, under the ledger's lock. A failure leaves that file for
 * next time; a lock held elsewhere past `lockTimeoutMs` rejects with core's `LockTimeoutError`.
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
  const done: string[] = [];
  const refused: MigrationResult['refused'] = [];
  for (const source of MIGRATION_SOURCES) {
    const file = path.join(ctx.hermesHome, source.file);
    if (!existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    if (!text.trim()) continue;
    const peerId = source.peer === 'user' ? ctx.userPeerId : ctx.aiPeerId;
    const key = `${ctx.workspaceId}/${peerId}/${source.uploadAs}`;
    if (readLedger(ledgerPath).uploaded[key]) continue;
    const guarded = guardWrite(text);
    if (!guarded.ok) {
      refused.push({ file: source.file, error: guarded.error });
      continue;
    }
    await ctx.upload(peerId, source.uploadAs, wrapPriorMemory(source, guarded.text), {
      source: 'hermes_memory_migration',
      original_file: source.file,
    });
    // Re-read before writing so a concurrent migration's entries are kept.
    const ledger = readLedger(ledgerPath);
    ledger.uploaded[key] = ctx.now().toISOString();
    writeFileAtomic(ledgerPath, `${JSON.stringify(ledger, null, 2)}\n`, { mode: 0o600 });
    done.push(source.uploadAs);
  }
  return { uploaded: done, refused };
}
