/**
 * Which Honcho session a conversation writes to, resolved without the network, in the reference's
 * order: gateway session key → per-session id → the `sessions` map for the directory → the
 * `/title` → per-repo (git root name) → per-directory (basename) → global (the workspace).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { HonchoConfig } from '../config/types';

/** Honcho rejects session ids over 100 characters. */
export const SESSION_ID_MAX_LENGTH = 100;
const HASH_LENGTH = 8;

/** Runs of characters outside `[a-zA-Z0-9_-]` become one "-", trimmed at both ends. */
export function slug(text: string): string {
  return text.replace(/[^a-zA-Z0-9_-]+/g, '-').replace(/^-+|-+$/g, '');
}

/** Each character outside `[a-zA-Z0-9_-]` becomes "-" (the peer/session id pattern). */
export function sanitizeId(text: string): string {
  return text.replace(/[^a-zA-Z0-9_-]/g, '-');
}

/**
 * Cut an id to 100 characters with `-<first 8 hex of sha256(original)>`: two long keys sharing a
 * prefix stay distinct, keys that sanitise identically still meet (the same logical session).
 */
export function enforceSessionIdLimit(sanitized: string, original: string): string {
  if (sanitized.length <= SESSION_ID_MAX_LENGTH) return sanitized;
  const digest = createHash('sha256').update(original, 'utf8').digest('hex').slice(0, HASH_LENGTH);
  const prefix = sanitized.slice(0, SESSION_ID_MAX_LENGTH - HASH_LENGTH - 1).replace(/-+$/, '');
  return `${prefix}-${digest}`;
}

export interface SessionNameInput {
  /** The Hermes session id. */
  sessionId?: string | undefined;
  /** The `/title` of the session. */
  sessionTitle?: string | undefined;
  /** A gateway's per-chat key ("agent:main:telegram:dm:42"). */
  gatewaySessionKey?: string | undefined;
  /** The working directory (default `process.cwd()`). */
  cwd?: string | undefined;
  /** The git root's folder name of `cwd`, for `per-repo` (resolved by the caller, which may run git). */
  gitRepoName?: string | undefined;
}

type SessionNameConfig = Pick<
  HonchoConfig,
  | 'sessionStrategy'
  | 'sessions'
  | 'peerName'
  | 'sessionPeerPrefix'
  | 'sessionAiPeerPrefix'
  | 'aiPeer'
  | 'workspaceId'
>;

function withPeerPrefix(config: SessionNameConfig, name: string): string {
  return config.sessionPeerPrefix && config.peerName ? `${config.peerName}-${name}` : name;
}

function baseName(config: SessionNameConfig, input: SessionNameInput): string {
  const cwd = input.cwd ?? process.cwd();
  const gateway = input.gatewaySessionKey;
  if (gateway && slug(gateway)) return enforceSessionIdLimit(slug(gateway), gateway);
  if (config.sessionStrategy === 'per-session' && input.sessionId)
    return withPeerPrefix(config, input.sessionId);
  const manual = config.sessions[cwd];
  if (manual) return manual;
  if (input.sessionTitle && slug(input.sessionTitle)) return withPeerPrefix(config, slug(input.sessionTitle));
  if (config.sessionStrategy === 'per-repo') {
    return withPeerPrefix(config, input.gitRepoName || path.basename(cwd));
  }
  if (config.sessionStrategy === 'per-directory' || config.sessionStrategy === 'per-session') {
    return withPeerPrefix(config, path.basename(cwd));
  }
  return config.workspaceId;
}

/**
 * The session name for this conversation. With `sessionAiPeerPrefix` every path, the gateway key
 * included, is prefixed `<aiPeer>-`. The result is what the Hermes agent would use; the provider
 * sanitises it into a Honcho id (`sessionIdOf`).
 */
export function resolveSessionName(config: SessionNameConfig, input: SessionNameInput): string {
  const name = baseName(config, input);
  if (name && config.sessionAiPeerPrefix && config.aiPeer) {
    const ai = slug(config.aiPeer);
    if (ai) {
      const prefixed = `${ai}-${name}`;
      return enforceSessionIdLimit(prefixed, prefixed);
    }
  }
  return name;
}

/** The Honcho session id of a session name: sanitised and held to 100 characters. */
export function sessionIdOf(name: string): string {
  return enforceSessionIdLimit(sanitizeId(name), name);
}

/** The git root's folder name for `per-repo`: walk up to a `.git` (no git process spawned). */
export function gitRepoName(cwd: string): string | undefined {
  let dir = path.resolve(cwd);
  for (;;) {
    if (existsSync(path.join(dir, '.git'))) return path.basename(dir);
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
