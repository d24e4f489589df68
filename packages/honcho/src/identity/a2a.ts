/**
 * Agent-to-agent turns (`a2aSessions`, on by default): a turn another bot wrote goes to a Honcho
 * session of its own — `<session>:a2a:<aiPeer>:<sender>-<digest8>`, the sender as its user peer —
 * and never into the human's session. This agent's AI peer is in the key because two profiles may
 * share a workspace and a session key; the digest keeps two senders apart when sanitising would
 * make their ids equal.
 */
import { createHash } from 'node:crypto';
import type { TurnAuthor } from '@hermes-memory/core';
import { sanitizeId, sessionIdOf } from './session-name';

/** The message refusing memory writes while a bot-authored turn runs (the reference's text). */
export const BOT_TURN_WRITE_REFUSAL =
  'Honcho memory writes are off during a bot-to-bot turn. Conclusions and profile edits describe the human.';

/** A `turnAuthor` as given to `syncTurn` (a bare string is a human author's id). */
export function authorOf(value: string | TurnAuthor | undefined): TurnAuthor | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? { id: value } : value;
}

/** The Honcho session of one sender bot's turns into this agent. */
export function a2aSessionKey(sessionKey: string, aiPeerId: string, authorId: string): string {
  const digest = createHash('sha256').update(authorId, 'utf8').digest('hex').slice(0, 8);
  return sessionIdOf(`${sessionKey}:a2a:${aiPeerId}:${sanitizeId(authorId)}-${digest}`);
}

/** The sender bot's peer: its id without the `bot:` marker, sanitised (`bot:east/coder` → `east-coder`). */
export function botPeerId(authorId: string): string {
  return sanitizeId(authorId.replace(/^bot:/, ''))
    .replace(/^-+|-+$/g, '')
    .slice(0, 100);
}
