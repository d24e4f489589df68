/** Who the commands act as: the session this directory maps to, and the two peers. */
import { HonchoBackend } from '../client/backend';
import { clientFor } from '../client/probe';
import { isConfigured } from '../config/resolve';
import type { HonchoConfig } from '../config/types';
import { resolveAiPeerId, resolveUserPeer } from '../identity/peers';
import { gitRepoName, resolveSessionName, sessionIdOf } from '../identity/session-name';
import { routeObserver } from '../tools/handlers';

/** The Honcho session id the agent would use in `cwd` (no Hermes session id: a CLI run). */
export function sessionName(config: HonchoConfig, cwd: string): string {
  return sessionIdOf(
    resolveSessionName(config, {
      cwd,
      gitRepoName: config.sessionStrategy === 'per-repo' ? gitRepoName(cwd) : undefined,
    }),
  );
}

export interface Connected {
  backend: HonchoBackend;
  session: string;
  user: string;
  ai: string;
  /** Who observes the user (the AI peer when it observes others, else the user). */
  userObserver: string;
}

/** A backend for the configured service, or null when Honcho is not configured. */
export function connect(config: HonchoConfig, cwd: string): Connected | null {
  if (!isConfigured(config)) return null;
  const session = sessionName(config, cwd);
  const user = resolveUserPeer(config, {}, session).id;
  const ai = resolveAiPeerId(config);
  return {
    backend: new HonchoBackend(clientFor(config, { maxRetries: 1 })),
    session,
    user,
    ai,
    userObserver: routeObserver({ aiPeerId: ai, observation: config.observation }, user),
  };
}
