/**
 * The newest content of each session's conversation document (decision 0932). An ingest is an
 * upsert by session id: whatever the service takes last replaces the document. So an ingest that
 * failed and is sent again later — its turns are older — must not replace a newer one that went
 * through meanwhile: it is dropped when the newer one holds its turns, else merged with it.
 */
import type { ConversationMessage } from './client';

/** One captured turn's text (either side may be empty). */
export interface TurnText {
  user: string;
  assistant: string;
}

/** An ingest the service took: what the session's document now holds. */
export interface DeliveredIngest {
  /** When its content was taken, on the provider's ingest clock (turns stamped no later are older). */
  stamp: number;
  messages: ConversationMessage[];
  /**
   * The host's whole transcript (session end): an older turn it lacks was rewound, not lost, so
   * it is not brought back. A partial ingest (buffered turns) lacks older turns only by accident.
   */
  complete: boolean;
}

/** Sessions remembered (the most recent); an older one's late re-send falls back to replacing. */
export const REMEMBERED_SESSIONS = 32;

export class SessionIngests {
  private readonly newest = new Map<string, DeliveredIngest>();

  get(sessionId: string): DeliveredIngest | undefined {
    return this.newest.get(sessionId);
  }

  /** Record `ingest` unless a newer one of the session is known; whether it is the newest now. */
  delivered(sessionId: string, ingest: DeliveredIngest): boolean {
    const known = this.newest.get(sessionId);
    if (known && known.stamp > ingest.stamp) return false;
    this.newest.delete(sessionId);
    this.newest.set(sessionId, ingest);
    for (const oldest of this.newest.keys()) {
      if (this.newest.size <= REMEMBERED_SESSIONS) break;
      this.newest.delete(oldest);
    }
    return true;
  }

  clear(): void {
    this.newest.clear();
  }
}

export function turnsToConversation(turns: readonly TurnText[]): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  for (const turn of turns) {
    if (turn.user !== '') out.push({ role: 'user', content: turn.user });
    if (turn.assistant !== '') out.push({ role: 'assistant', content: turn.assistant });
  }
  return out;
}

/**
 * Of `turns` (older than `ingest`), those its document lacks: none when it is the host's whole
 * transcript; else each turn whose messages it does not hold as one exchange (a user message and
 * the replies up to the next one), each of its exchanges matching one turn. A turn it holds in
 * another shape counts as lacking: sent twice rather than lost.
 */
export function missingFrom<T extends TurnText>(ingest: DeliveredIngest, turns: readonly T[]): T[] {
  if (ingest.complete) return [];
  const held = new Map<string, number>();
  for (const exchange of exchanges(ingest.messages)) {
    const key = JSON.stringify(exchange);
    held.set(key, (held.get(key) ?? 0) + 1);
  }
  return turns.filter((turn) => {
    const key = JSON.stringify(turnsToConversation([turn]));
    const left = held.get(key) ?? 0;
    if (left === 0) return true;
    held.set(key, left - 1);
    return false;
  });
}

/** `messages` cut before each user message. */
function exchanges(messages: readonly ConversationMessage[]): ConversationMessage[][] {
  const out: ConversationMessage[][] = [];
  for (const message of messages) {
    const last = out.at(-1);
    if (message.role === 'user' || !last) out.push([message]);
    else last.push(message);
  }
  return out;
}
