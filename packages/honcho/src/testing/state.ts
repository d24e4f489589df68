/** The fake Honcho's state: plain JSON (so `dump()` is a deep copy), shaped like the v3 API's objects. */

export interface FakeMessage {
  id: string;
  content: string;
  peer_id: string;
  session_id: string;
  workspace_id: string;
  metadata: Record<string, unknown>;
  created_at: string;
  token_count: number;
}

export interface FakeConclusion {
  id: string;
  content: string;
  observer_id: string;
  observed_id: string;
  session_id: string | null;
  level: 'explicit' | 'deductive' | 'inductive' | 'contradiction';
  created_at: string;
}

export interface FakePeerConfig {
  observe_me: boolean | null;
  observe_others: boolean | null;
}

export interface FakeSession {
  id: string;
  workspace_id: string;
  is_active: boolean;
  metadata: Record<string, unknown>;
  configuration: Record<string, unknown>;
  created_at: string;
  /** Peer id → its observation config in this session. */
  peers: Record<string, FakePeerConfig>;
  /** A summary, once one exists (`setSummary`); Honcho writes them in the background. */
  summary: {
    content: string;
    message_id: string;
    summary_type: string;
    created_at: string;
    token_count: number;
  } | null;
}

export interface FakePeer {
  id: string;
  workspace_id: string;
  metadata: Record<string, unknown>;
  configuration: Record<string, unknown>;
  created_at: string;
  /** Peer cards this peer keeps, by target (`self` for its own). */
  cards: Record<string, string[]>;
}

export interface FakeWorkspace {
  id: string;
  metadata: Record<string, unknown>;
  configuration: Record<string, unknown>;
  created_at: string;
  peers: Record<string, FakePeer>;
  sessions: Record<string, FakeSession>;
  messages: FakeMessage[];
  conclusions: FakeConclusion[];
}

export interface FakeHonchoState {
  workspaces: Record<string, FakeWorkspace>;
  /** Counter behind ids and timestamps, so runs are deterministic. */
  sequence: number;
}

export function emptyState(): FakeHonchoState {
  return { workspaces: {}, sequence: 0 };
}

const EPOCH = Date.UTC(2026, 0, 1);

/** A deterministic id and ISO timestamp (one second apart) from the state's counter. */
export function nextStamp(state: FakeHonchoState, prefix: string): { id: string; createdAt: string } {
  state.sequence += 1;
  const n = state.sequence;
  return {
    id: `${prefix}_${n.toString(36).padStart(6, '0')}`,
    createdAt: new Date(EPOCH + n * 1000).toISOString(),
  };
}

export function tokenCount(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Ids Honcho accepts for workspaces, peers and sessions. */
export const ID_PATTERN = /^[a-zA-Z0-9_-]+$/;

/** Lower-case word stems for the fake's keyword relevance. */
export function terms(text: string): Set<string> {
  const out = new Set<string>();
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (word.length < 3 || STOPWORDS.has(word)) continue;
    out.add(word.length > 4 ? word.replace(/(ing|ed|es|s)$/, '') : word);
  }
  return out;
}

/** Shared terms of a query and a text (0 when nothing matches). */
export function overlap(query: Set<string>, text: string): number {
  let n = 0;
  for (const term of terms(text)) if (query.has(term)) n += 1;
  return n;
}

const STOPWORDS = new Set(
  'the and for are but not you your with this that have from they what when where who how why was were will would can could should about into than then them their there these those our out all any some more most such only own same too very just also been being does did doing had has having here its it’s let’s may might must shall she him her his hers ours yours which while over under again further once both each few other nor off per via'.split(
    ' ',
  ),
);
