/**
 * Who the user and the assistant are in Honcho. The user peer follows the reference's ladder, first
 * match wins: a pinned `peerName` → an alias of the runtime id → an alias of the alternate runtime
 * id → `runtimePeerPrefix` + runtime id (with a hash suffix when that would be ambiguous) → the
 * runtime id itself → `peerName` → `user-<channel>-<chat>` from the session key. The last step is
 * the older reference's; the newest fails session init there instead, which would leave a user who
 * only set HONCHO_API_KEY without memory, so we keep it and say once how to name the peer.
 */
import { createHash } from 'node:crypto';
import type { HonchoConfig } from '../config/types';
import { sanitizeId } from './session-name';

const HASH_LENGTHS = [8, 12, 16, 24, 32, 64] as const;

/** The assistant's peer when no config names one. */
export const DEFAULT_AI_PEER = 'hermes-assistant';

type PeerConfig = Pick<HonchoConfig, 'peerName' | 'pinUserPeer' | 'userPeerAliases' | 'runtimePeerPrefix'>;

export interface RuntimeIdentity {
  /** The platform's user id (a Telegram UID, a Discord snowflake); gateways only. */
  userId?: string | undefined;
  /** A stable alternate id of the same user (a Signal UUID, a Feishu union_id). */
  userIdAlt?: string | undefined;
}

function runtimeIds(identity: RuntimeIdentity): string[] {
  const out: string[] = [];
  for (const value of [identity.userId, identity.userIdAlt]) {
    const id = value?.trim();
    if (id && !out.includes(id)) out.push(id);
  }
  return out;
}

/** Peer ids that came from explicit config (peerName and every alias target), sanitised. */
function explicitPeerIds(config: PeerConfig): Set<string> {
  const ids = new Set<string>();
  if (config.peerName?.trim()) ids.add(sanitizeId(config.peerName.trim()));
  for (const alias of Object.values(config.userPeerAliases))
    if (alias.trim()) ids.add(sanitizeId(alias.trim()));
  return ids;
}

/**
 * `prefix + runtimeId`, sanitised. When sanitising changed it, or it equals a configured peer, a
 * `-<sha256 prefix>` of the raw id is appended, lengthening 8 → 12 → … → 64 until it is unique.
 */
export function prefixedRuntimePeerId(config: PeerConfig, prefix: string, runtimeId: string): string {
  const raw = `${prefix}${runtimeId}`;
  const sanitized = sanitizeId(raw);
  const explicit = explicitPeerIds(config);
  if (sanitized === raw && !explicit.has(sanitized)) return sanitized;
  const digest = createHash('sha256').update(raw, 'utf8').digest('hex');
  for (const length of HASH_LENGTHS) {
    const candidate = `${sanitized}-${digest.slice(0, length)}`;
    if (!explicit.has(candidate)) return candidate;
  }
  return `${sanitized}-${digest}`;
}

/** The per-chat fallback peer: `user-<channel>-<chat>` from a `channel:chat` session key. */
export function sessionKeyFallbackPeerId(sessionKey: string): string {
  const cut = sessionKey.indexOf(':');
  const channel = cut >= 0 ? sessionKey.slice(0, cut) : 'default';
  const chat = cut >= 0 ? sessionKey.slice(cut + 1) : sessionKey;
  return sanitizeId(`user-${channel}-${chat}`);
}

export interface UserPeer {
  id: string;
  /** Which rung of the ladder chose it. */
  source: 'pinned' | 'alias' | 'prefixed' | 'runtime' | 'peerName' | 'session-key';
}

/** The user's peer id for a session. */
export function resolveUserPeer(config: PeerConfig, identity: RuntimeIdentity, sessionKey: string): UserPeer {
  if (config.pinUserPeer && config.peerName) return { id: sanitizeId(config.peerName), source: 'pinned' };
  const ids = runtimeIds(identity);
  if (ids.length > 0) {
    for (const id of ids) {
      const alias = config.userPeerAliases[id];
      if (alias?.trim()) return { id: sanitizeId(alias.trim()), source: 'alias' };
    }
    const prefix = config.runtimePeerPrefix.trim();
    if (prefix) return { id: prefixedRuntimePeerId(config, prefix, ids[0]!), source: 'prefixed' };
    return { id: sanitizeId(ids[0]!), source: 'runtime' };
  }
  if (config.peerName) return { id: sanitizeId(config.peerName), source: 'peerName' };
  return { id: sessionKeyFallbackPeerId(sessionKey), source: 'session-key' };
}

/** The assistant's peer id: the sanitised `aiPeer`. */
export function resolveAiPeerId(config: Pick<HonchoConfig, 'aiPeer'> | undefined): string {
  return sanitizeId(config?.aiPeer || DEFAULT_AI_PEER);
}

/**
 * Whether the session's user owns the memory files the migration would upload. As in the reference,
 * with a `peerName` only that peer does (pinned, or an alias that names it): on a gateway, a
 * stranger's first chat would otherwise put the owner's MEMORY.md and USER.md under the stranger's
 * peer, and Honcho would answer the stranger from them. With no `peerName` the reference uploads
 * for nobody; we treat a session with no platform user (the CLI, a script on the owner's machine)
 * as the owner's, since only someone who can read the files runs it — else a user who set only
 * HONCHO_API_KEY would never see their notes in Honcho.
 */
export function isMemoryOwner(config: PeerConfig, identity: RuntimeIdentity, userPeerId: string): boolean {
  const owner = config.peerName?.trim();
  if (owner) return userPeerId === sanitizeId(owner);
  return runtimeIds(identity).length === 0;
}
