/**
 * Honcho's part of `hermes-memory export` / `import` (decision 0603): what the workspace holds
 * that Honcho lets a client read back — peers, sessions, their messages, and conclusions — as
 * records in the server's order. Import writes messages and conclusions that are not there yet
 * (each through the write scanner); peers and sessions come into being with them, and what Honcho
 * derives (representations, cards, summaries) is rebuilt by Honcho, not imported.
 */
import type {
  CliProgress,
  JsonValue,
  PortableRecord,
  ProviderCliContext,
  ProviderImportResult,
} from '@hermes-memory/core';
import { HonchoBackend } from '../client/backend';
import { clientFor } from '../client/probe';
import { isConfigured } from '../config/resolve';
import { guardWrite } from '../guard';
import { loadConfig } from './honcho-file';

const ID = /^[A-Za-z0-9_-]{1,512}$/;

/** A JSON copy of SDK data (metadata is whatever the server holds). */
function json(value: unknown): { [key: string]: JsonValue } {
  return JSON.parse(JSON.stringify(value ?? {})) as { [key: string]: JsonValue };
}

function backendOf(ctx: ProviderCliContext): HonchoBackend | null {
  const config = loadConfig(ctx);
  return isConfigured(config) ? new HonchoBackend(clientFor(config, { maxRetries: 1 })) : null;
}

export async function* exportHonchoRecords(ctx: ProviderCliContext): AsyncIterable<PortableRecord> {
  const backend = backendOf(ctx);
  if (!backend) {
    ctx.logger.warn('Honcho is not configured: nothing to export from it.');
    return;
  }
  const client = backend.client;
  const records = await client.call(ctx.signal, async (sdk) => {
    const out: PortableRecord[] = [];
    for await (const peer of await sdk.peers())
      out.push({
        kind: 'peer',
        id: peer.id,
        metadata: json(peer.metadata),
        configuration: json(peer.configuration),
      });
    for await (const session of await sdk.sessions()) {
      out.push({ kind: 'session', id: session.id, metadata: json(session.metadata) });
      for await (const m of await session.messages())
        out.push({
          kind: 'message',
          session: m.sessionId,
          peer: m.peerId,
          content: m.content,
          metadata: json(m.metadata),
          created_at: String(m.createdAt),
        });
    }
    for await (const c of await sdk.conclusions.list())
      out.push({
        kind: 'conclusion',
        id: c.id,
        observer: c.observerId,
        observed: c.observedId,
        session: c.sessionId ?? null,
        content: c.content,
        level: c.level,
        created_at: String(c.createdAt),
      });
    return out;
  });
  yield* records;
}

const KINDS = ['peer', 'session', 'message', 'conclusion'];

export function validateHonchoRecord(record: PortableRecord): string | undefined {
  const kind = record.kind;
  if (typeof kind !== 'string' || !KINDS.includes(kind)) return `kind must be one of ${KINDS.join(', ')}`;
  const ids: Record<string, string[]> = {
    peer: ['id'],
    session: ['id'],
    message: ['session', 'peer'],
    conclusion: ['observer', 'observed'],
  };
  for (const key of ids[kind]!) {
    const value = record[key];
    if (typeof value !== 'string' || !ID.test(value))
      return `${kind} ${key} must be a Honcho id (letters, digits, '_', '-')`;
  }
  if (kind === 'message' || kind === 'conclusion') {
    if (typeof record.content !== 'string' || record.content.trim() === '')
      return `${kind} content must be a non-empty string`;
    if (record.created_at !== undefined && typeof record.created_at !== 'string')
      return `${kind} created_at must be a string`;
  }
  if (kind === 'conclusion' && record.session !== undefined && record.session !== null) {
    if (typeof record.session !== 'string' || !ID.test(record.session))
      return 'conclusion session must be a Honcho id or null';
  }
  return undefined;
}

const messageKey = (session: string, peer: string, content: string) =>
  `${session}\u0000${peer}\u0000${content}`;
const conclusionKey = (observer: string, observed: string, content: string) =>
  `${observer}\u0000${observed}\u0000${content}`;

export async function importHonchoRecords(
  ctx: ProviderCliContext,
  records: readonly PortableRecord[],
  progress: CliProgress,
): Promise<ProviderImportResult> {
  const backend = backendOf(ctx);
  if (!backend) throw ctx.fail('Honcho is not configured.', "Run 'hermes-memory honcho setup' first.");
  const result: ProviderImportResult = { inserted: 0, skipped: 0, refused: [] };
  const messages = records.filter((r) => r.kind === 'message');
  const conclusions = records.filter((r) => r.kind === 'conclusion');
  result.skipped += records.length - messages.length - conclusions.length;
  progress.tick(records.length - messages.length - conclusions.length);

  // What the workspace already holds, so importing a file twice adds nothing.
  const existing = await backend.client.call(ctx.signal, async (sdk) => {
    const seen = new Set<string>();
    const sessions = new Set(messages.map((m) => String(m.session)));
    for (const id of sessions) {
      const session = await sdk.session(id);
      for await (const m of await session.messages()) seen.add(messageKey(id, m.peerId, m.content));
    }
    if (conclusions.length > 0)
      for await (const c of await sdk.conclusions.list())
        seen.add(conclusionKey(c.observerId, c.observedId, c.content));
    return seen;
  });

  const bySession = new Map<string, Array<{ peerId: string; content: string; createdAt?: string }>>();
  for (const record of messages) {
    const session = String(record.session);
    const peer = String(record.peer);
    const guarded = guardWrite(String(record.content));
    if (!guarded.ok) result.refused.push({ error: guarded.error, record });
    else if (existing.has(messageKey(session, peer, guarded.text))) result.skipped += 1;
    else {
      existing.add(messageKey(session, peer, guarded.text));
      const list = bySession.get(session) ?? [];
      list.push({
        peerId: peer,
        content: guarded.text,
        ...(typeof record.created_at === 'string' ? { createdAt: record.created_at } : {}),
      });
      bySession.set(session, list);
    }
  }
  for (const [session, list] of bySession) {
    // Honcho takes at most 100 messages per request.
    for (let i = 0; i < list.length; i += 100) {
      const part = list.slice(i, i + 100);
      await backend.addMessages(session, part, ctx.signal);
      result.inserted += part.length;
      progress.tick(part.length);
    }
  }
  progress.tick(messages.length - [...bySession.values()].reduce((n, l) => n + l.length, 0));

  for (const record of conclusions) {
    const observer = String(record.observer);
    const observed = String(record.observed);
    const guarded = guardWrite(String(record.content));
    if (!guarded.ok) result.refused.push({ error: guarded.error, record });
    else if (existing.has(conclusionKey(observer, observed, guarded.text))) result.skipped += 1;
    else {
      const session = typeof record.session === 'string' ? record.session : undefined;
      await backend.createConclusion(observer, observed, guarded.text, session, ctx.signal);
      existing.add(conclusionKey(observer, observed, guarded.text));
      result.inserted += 1;
    }
    progress.tick();
  }
  progress.done();
  return result;
}
