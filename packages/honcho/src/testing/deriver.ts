/**
 * What the fake answers where real Honcho runs its deriver and an LLM: representations, dialectic
 * answers and message search, from the stored messages and conclusions with a transparent keyword
 * model. A peer's own messages (where it is observed) and the conclusions an observer holds about
 * it are its "observations"; a question is answered with the observations that share words with
 * it, or the most recent ones for a general question. No LLM, deterministic, and honest: nothing
 * is answered that was never stored.
 */
import { type FakeMessage, type FakeWorkspace, overlap, terms } from './state';

export interface Observation {
  text: string;
  createdAt: string;
}

/** Whether `observer` sees `target`'s messages in a session (Honcho's observe_me / observe_others). */
function observes(workspace: FakeWorkspace, sessionId: string, observer: string, target: string): boolean {
  const session = workspace.sessions[sessionId];
  const targetConfig = session?.peers[target];
  if (targetConfig?.observe_me === false) return false;
  if (observer === target) return true;
  const observerConfig = session?.peers[observer];
  return observerConfig !== undefined && observerConfig.observe_others !== false;
}

export function observationsOf(workspace: FakeWorkspace, observer: string, target: string): Observation[] {
  const out: Observation[] = [];
  for (const c of workspace.conclusions) {
    if (c.observer_id === observer && c.observed_id === target)
      out.push({ text: c.content, createdAt: c.created_at });
  }
  for (const m of workspace.messages) {
    if (m.peer_id === target && observes(workspace, m.session_id, observer, target)) {
      out.push({ text: m.content, createdAt: m.created_at });
    }
  }
  return out;
}

/** Observations ranked for a query (shared words first, then recency), or the most recent ones. */
export function rank<T extends Observation>(
  observations: readonly T[],
  query: string | undefined,
  limit: number,
): T[] {
  const recent = [...observations].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  const wanted = query ? terms(query) : new Set<string>();
  if (wanted.size === 0) return recent.slice(0, limit);
  const scored = recent
    .map((o) => ({ o, score: overlap(wanted, o.text) }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score);
  return scored.slice(0, limit).map((s) => s.o);
}

export function representationOf(
  workspace: FakeWorkspace,
  observer: string,
  target: string,
  searchQuery?: string,
  topK = 10,
): string {
  const found = searchQuery
    ? [...rank(observationsOf(workspace, observer, target), searchQuery, topK)]
    : rank(observationsOf(workspace, observer, target), undefined, topK);
  return found.map((o) => `- ${o.text}`).join('\n');
}

/** A dialectic answer, or null when nothing is known (what Honcho's chat returns then). */
export function dialecticAnswer(
  workspace: FakeWorkspace,
  observer: string,
  target: string,
  query: string,
): string | null {
  const all = observationsOf(workspace, observer, target);
  if (all.length === 0) return null;
  const relevant = rank(all, query, 5);
  const found = relevant.length > 0 ? relevant : rank(all, undefined, 5);
  return `What I know about ${target}:\n${found.map((o) => `- ${o.text}`).join('\n')}`;
}

/** Messages sharing words with the query, best first (ties: newest first). */
export function searchMessages(
  messages: readonly FakeMessage[],
  query: string,
  limit: number,
): FakeMessage[] {
  const wanted = terms(query);
  return messages
    .map((m) => ({ m, score: overlap(wanted, m.content) }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || b.m.created_at.localeCompare(a.m.created_at))
    .slice(0, limit)
    .map((s) => s.m);
}
