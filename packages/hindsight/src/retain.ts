/**
 * What a retain sends, built as the reference builds it: a turn is a JSON array of two messages
 * `{role, content: "<Prefix>: text", timestamp}` sharing the turn's event time; a retain's content
 * is a JSON array of turns; tags are the configured ones plus `session:`/`parent:` lineage;
 * metadata holds only populated fields, every value a string.
 */
import type { InitContext } from '@hermes-memory/core';
import type { HindsightConfig } from './config';

/** One session's conversation as the writer sees it (a switch starts a new log; the old one is flushed). */
export interface SessionLog {
  sessionId: string;
  parentSessionId: string;
  /** Every turn of the session so far, each a JSON array of two messages. */
  turns: string[];
  /** Turns handed to the writer (a dispatch covers `turns[..dispatched]`). */
  dispatched: number;
  /** Turns the server holds in the session document (append mode advances it after each success). */
  retained: number;
  /** The document of an old server (before 0.5.0): unique per process and session. */
  processDocumentId: string;
  /**
   * Whether this session's document is appended to, decided by its first retain that goes through
   * and kept, so a version probe that fails once never splits a session over two documents.
   */
  appends?: boolean;
  /** The bank of a replayed log (its turns' `bankId`); otherwise the provider's bank. */
  bankId?: string;
  /** Per turn, its outbox entry (decision 0115); acknowledged once below `retained`. */
  outboxIds?: Array<string | undefined>;
  /** Turns whose outbox entries are acknowledged (always ≤ `retained`). */
  settled?: number;
}

/** Who and where, from `initialize` (each becomes metadata only when set). */
export interface TurnIdentity {
  platform: string;
  userId: string;
  userName: string;
  chatId: string;
  chatName: string;
  chatType: string;
  threadId: string;
  agentIdentity: string;
}

export function identityOf(context: Partial<InitContext>): TurnIdentity {
  const s = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
  return {
    platform: s(context.platform),
    userId: s(context.userId),
    userName: s(context.userName),
    chatId: s(context.chatId),
    chatName: s(context.chatName),
    chatType: s(context.chatType),
    threadId: s(context.threadId),
    agentIdentity: s(context.agentIdentity),
  };
}

let minted = 0;

/** `<sessionId>-<YYYYmmdd_HHMMSS_micro>` (local time), distinct for every call in this process. */
export function mintDocumentId(sessionId: string, nowMs: number): string {
  const d = new Date(nowMs);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  // Milliseconds plus a per-process counter fill the microseconds, so two mints never collide.
  const micro = d.getMilliseconds() * 1000 + (minted++ % 1000);
  return `${sessionId}-${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}_${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}_${p(micro, 6)}`;
}

export function newSessionLog(sessionId: string, parentSessionId: string, nowMs: number): SessionLog {
  return {
    sessionId,
    parentSessionId,
    turns: [],
    dispatched: 0,
    retained: 0,
    processDocumentId: mintDocumentId(sessionId, nowMs),
  };
}

/** ISO-8601 to the second with the local UTC offset (`2026-03-01T13:00:00+01:00`), never offset-less. */
export function eventTimestamp(nowMs: number): string {
  const d = new Date(nowMs);
  const p = (n: number) => String(Math.trunc(Math.abs(n))).padStart(2, '0');
  const offset = -d.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}${sign}${p(offset / 60)}:${p(offset % 60)}`;
}

/** One turn as the JSON text the session document is built from. */
export function turnJson(user: string, assistant: string, config: HindsightConfig, nowMs: number): string {
  const timestamp = eventTimestamp(nowMs);
  return JSON.stringify([
    { role: 'user', content: `${config.retainUserPrefix}: ${user}`, timestamp },
    { role: 'assistant', content: `${config.retainAssistantPrefix}: ${assistant}`, timestamp },
  ]);
}

/** A retain's content: the turns as one JSON array of turn arrays. */
export function sessionContent(turns: readonly string[]): string {
  return `[${turns.join(',')}]`;
}

/** `session:<id>` and `parent:<id>` (each when known). */
export function lineageTags(log: Pick<SessionLog, 'sessionId' | 'parentSessionId'>): string[] {
  const tags: string[] = [];
  if (log.sessionId) tags.push(`session:${log.sessionId}`);
  if (log.parentSessionId) tags.push(`parent:${log.parentSessionId}`);
  return tags;
}

/** Configured tags first, then `extra` not already there (order kept, no duplicates). */
export function mergeTags(configured: readonly string[], extra: readonly string[]): string[] {
  const out = [...configured];
  for (const tag of extra) {
    const t = tag.trim();
    if (t !== '' && !out.includes(t)) out.push(t);
  }
  return out;
}

export function retainMetadata(
  options: {
    config: HindsightConfig;
    identity: TurnIdentity;
    sessionId: string;
    messageCount: number;
    turnIndex: number;
  },
  nowMs: number,
): Record<string, string> {
  const { config, identity } = options;
  const metadata: Record<string, string> = {
    retained_at: new Date(nowMs).toISOString(),
    message_count: String(options.messageCount),
    turn_index: String(options.turnIndex),
  };
  const optional: [string, string][] = [
    ['source', config.retainSource],
    ['session_id', options.sessionId],
    ['platform', identity.platform],
    ['user_id', identity.userId],
    ['user_name', identity.userName],
    ['chat_id', identity.chatId],
    ['chat_name', identity.chatName],
    ['chat_type', identity.chatType],
    ['thread_id', identity.threadId],
    ['agent_identity', identity.agentIdentity],
  ];
  for (const [key, value] of optional) if (value) metadata[key] = value;
  return metadata;
}
