/**
 * The server-side state of the fake: a `viking://` tree of directories and files, sessions with
 * their messages, and what a commit extracts. Plain objects only, so `dump()` copies it.
 */

export interface FakeNode {
  uri: string;
  isDir: boolean;
  content: string;
  /** L0 summary (files: the first line; directories: generated). */
  abstract: string;
  /** 2 for leaves (memory files), 0/1 for directories. */
  level: number;
  contextType: 'memory' | 'resource' | 'skill' | 'session' | 'other';
  updatedAt: number;
}

export interface FakeSessionMessage {
  role: string;
  parts: unknown[];
  peer_id?: string;
}

export interface FakeSession {
  id: string;
  /** Messages not yet committed (archived at commit). */
  messages: FakeSessionMessage[];
  archived: number;
  commits: number;
}

export interface FakeOpenvikingState {
  /** The user id `system/status` reports and memories live under. */
  userId: string;
  account: string;
  nodes: Record<string, FakeNode>;
  sessions: Record<string, FakeSession>;
  tempUploads: Record<string, { name: string; bytes: number }>;
  /** Counters for ids (never reused). */
  next: number;
}

export const ROOT = 'viking://';

export function newState(userId: string, account: string): FakeOpenvikingState {
  const state: FakeOpenvikingState = { userId, account, nodes: {}, sessions: {}, tempUploads: {}, next: 1 };
  for (const dir of [`viking://user/${userId}/memories`, 'viking://resources', 'viking://skills'])
    ensureDir(state, dir);
  return state;
}

/** `viking://a/b/c` → `viking://a/b`; the root has no parent. */
export function parentOf(uri: string): string | null {
  if (uri === ROOT) return null;
  const rest = uri.slice(ROOT.length);
  const cut = rest.lastIndexOf('/');
  return cut < 0 ? ROOT : `${ROOT}${rest.slice(0, cut)}`;
}

export function nameOf(uri: string): string {
  const rest = uri.slice(ROOT.length);
  return rest.slice(rest.lastIndexOf('/') + 1);
}

/** Trailing slashes off; `viking:/` and `viking:` are the root. */
export function normalizeUri(uri: string): string | null {
  if (!uri.startsWith('viking:')) return null;
  const trimmed = uri.replace(/\/+$/, '');
  if (trimmed === 'viking:' || trimmed === 'viking:/') return ROOT;
  if (!trimmed.startsWith(ROOT) || trimmed.includes('/../') || trimmed.endsWith('/..')) return null;
  return trimmed;
}

export function ensureDir(state: FakeOpenvikingState, uri: string): void {
  for (let at: string | null = uri; at && at !== ROOT && !state.nodes[at]; at = parentOf(at)) {
    state.nodes[at] = {
      uri: at,
      isDir: true,
      content: '',
      abstract: '',
      level: 1,
      contextType: contextTypeOf(at),
      updatedAt: 0,
    };
  }
}

export function writeFile(state: FakeOpenvikingState, uri: string, content: string): FakeNode {
  const parent = parentOf(uri);
  if (parent) ensureDir(state, parent);
  const node: FakeNode = {
    uri,
    isDir: false,
    content,
    abstract: firstLine(content),
    level: 2,
    contextType: contextTypeOf(uri),
    updatedAt: state.next++,
  };
  state.nodes[uri] = node;
  return node;
}

export function childrenOf(state: FakeOpenvikingState, uri: string, recursive: boolean): FakeNode[] {
  const out: FakeNode[] = [];
  for (const node of Object.values(state.nodes)) {
    const parent = parentOf(node.uri);
    if (parent === uri || (recursive && isUnder(node.uri, uri))) out.push(node);
  }
  return out.sort((a, b) => a.uri.localeCompare(b.uri));
}

export function isUnder(uri: string, dir: string): boolean {
  return dir === ROOT ? uri !== ROOT : uri.startsWith(`${dir}/`);
}

/** A directory's generated L0 summary: what it holds, by name and first line. */
export function directoryAbstract(state: FakeOpenvikingState, uri: string): string {
  const children = childrenOf(state, uri, false);
  if (children.length === 0) return `${nameOf(uri) || 'root'}: empty`;
  return `${nameOf(uri) || 'root'}: ${children.length} entr${children.length === 1 ? 'y' : 'ies'} — ${children
    .slice(0, 5)
    .map((c) => (c.isDir ? `${nameOf(c.uri)}/` : c.abstract || nameOf(c.uri)))
    .join('; ')}`;
}

/** L1: every child with its summary, one per line. */
export function directoryOverview(state: FakeOpenvikingState, uri: string): string {
  const children = childrenOf(state, uri, false);
  return [
    `# ${nameOf(uri) || 'viking://'}`,
    ...children.map(
      (c) =>
        `- ${nameOf(c.uri)}${c.isDir ? '/' : ''}: ${c.isDir ? directoryAbstract(state, c.uri) : c.abstract}`,
    ),
  ].join('\n');
}

function contextTypeOf(uri: string): FakeNode['contextType'] {
  if (/^viking:\/\/user\/[^/]+\/(peers\/[^/]+\/)?memories(\/|$)/.test(uri)) return 'memory';
  if (uri.startsWith('viking://resources')) return 'resource';
  if (uri.startsWith('viking://skills')) return 'skill';
  if (/\/sessions(\/|$)/.test(uri)) return 'session';
  return 'other';
}

function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  return line.trim().slice(0, 200);
}

/**
 * What the server's extraction makes of a committed session, in a deterministic, model-free
 * form: every user text of at least a few words becomes one memory file — under `preferences`
 * when it states a liking, `entities` when it names something the user has, else `events` —
 * peer-scoped when the message carried a peer id. Returns the new memory URIs.
 */
export function extractMemories(state: FakeOpenvikingState, session: FakeSession): string[] {
  const made: string[] = [];
  for (const message of session.messages) {
    if (message.role !== 'user') continue;
    for (const part of message.parts) {
      const text =
        typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'text'
          ? String((part as { text?: unknown }).text ?? '').trim()
          : '';
      if (text.split(/\s+/).length < 3) continue;
      const category = /\b(prefer|like|love|favou?rite|enjoy|hate|dislike)\b/i.test(text)
        ? 'preferences'
        : /\b(my|our)\s+\w+/i.test(text)
          ? 'entities'
          : 'events';
      const uri = `viking://user/${state.userId}/memories/${category}/mem_${hex12(state.next++)}.md`;
      writeFile(state, uri, text);
      made.push(uri);
    }
  }
  return made;
}

export function hex12(n: number): string {
  return (n * 2654435761).toString(16).padStart(12, '0').slice(-12);
}
