import { createHash } from 'node:crypto';

/** One memory as Mem0 stores it (snake_case, as on the wire). */
export interface FakeMemory {
  id: string;
  memory: string;
  hash: string;
  user_id: string | null;
  agent_id: string | null;
  app_id: string | null;
  run_id: string | null;
  metadata: Record<string, unknown> | null;
  categories: string[];
  created_at: string;
  updated_at: string;
}

export interface FakeHistoryEntry {
  id: string;
  memory_id: string;
  old_memory: string | null;
  new_memory: string | null;
  event: 'ADD' | 'UPDATE' | 'DELETE';
  user_id: string | null;
  created_at: string;
}

/** The state both fakes keep: memories, their history and the Platform's add events. */
export interface FakeMem0State {
  memories: FakeMemory[];
  history: FakeHistoryEntry[];
  events: Array<{
    id: string;
    status: 'PENDING' | 'SUCCEEDED';
    results: Array<{ id: string; event: string; data: { memory: string } }>;
  }>;
  nextId: number;
}

export const ENTITY_KEYS = ['user_id', 'agent_id', 'app_id', 'run_id'] as const;
const STOPWORDS = new Set(
  'a an and are as at be by do does did for from has have how i in is it its me my of on or our so that the their them they this to was we were what when where which who why will with you your'.split(
    ' ',
  ),
);

export function newState(): FakeMem0State {
  return { memories: [], history: [], events: [], nextId: 1 };
}

/** UUID-shaped, deterministic ids (the Platform validates ids as UUIDs). */
export function nextUuid(state: FakeMem0State): string {
  const n = state.nextId++;
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 1 && !STOPWORDS.has(w));
}

/**
 * The stand-in for Mem0's extraction (`infer: true`): each declarative sentence of a user message
 * of three words or more becomes a fact. Questions and the assistant's words are not facts.
 * With `infer: false` every message is stored verbatim, as Mem0 does.
 */
export function extractFacts(
  messages: ReadonlyArray<{ role?: unknown; content?: unknown }>,
  infer: boolean,
): string[] {
  const facts: string[] = [];
  for (const message of messages) {
    if (typeof message.content !== 'string' || message.content.trim() === '') continue;
    if (!infer) {
      facts.push(message.content.trim());
      continue;
    }
    if (message.role !== 'user') continue;
    for (const sentence of message.content.split(/(?<=[.!?。！？])\s+/)) {
      const text = sentence.trim();
      if (text.endsWith('?') || text.endsWith('？') || text.split(/\s+/).length < 3) continue;
      facts.push(text);
    }
  }
  return facts;
}

export interface AddInput {
  messages: ReadonlyArray<{ role?: unknown; content?: unknown }>;
  infer: boolean;
  entities: Partial<Record<(typeof ENTITY_KEYS)[number], string>>;
  metadata: Record<string, unknown> | null;
  now: string;
}

/**
 * Store the facts of an add. Extraction (`infer`) drops a fact the user already has, as Mem0's
 * NOOP decision does; a verbatim add stores what it is given.
 */
export function addMemories(state: FakeMem0State, input: AddInput): FakeMemory[] {
  const added: FakeMemory[] = [];
  for (const fact of extractFacts(input.messages, input.infer)) {
    const hash = createHash('md5').update(fact).digest('hex');
    const duplicate =
      input.infer &&
      state.memories.some((m) => m.hash === hash && m.user_id === (input.entities.user_id ?? null));
    if (duplicate) continue;
    const memory: FakeMemory = {
      id: nextUuid(state),
      memory: fact,
      hash,
      user_id: input.entities.user_id ?? null,
      agent_id: input.entities.agent_id ?? null,
      app_id: input.entities.app_id ?? null,
      run_id: input.entities.run_id ?? null,
      metadata: input.metadata,
      categories: [],
      created_at: input.now,
      updated_at: input.now,
    };
    state.memories.push(memory);
    state.history.push(historyEntry(state, memory, 'ADD', null, fact, input.now));
    added.push(memory);
  }
  return added;
}

export function historyEntry(
  state: FakeMem0State,
  memory: FakeMemory,
  event: FakeHistoryEntry['event'],
  oldMemory: string | null,
  newMemory: string | null,
  now: string,
): FakeHistoryEntry {
  return {
    id: nextUuid(state),
    memory_id: memory.id,
    old_memory: oldMemory,
    new_memory: newMemory,
    event,
    user_id: memory.user_id,
    created_at: now,
  };
}

/**
 * Mem0's filter object: entity keys match exactly; `AND` / `OR` hold lists of filters. Unknown
 * keys match metadata values.
 */
export function matchesFilter(memory: FakeMemory, filter: Record<string, unknown>): boolean {
  return Object.entries(filter).every(([key, value]) => {
    if (key === 'AND' && Array.isArray(value))
      return value.every((f) => matchesFilter(memory, f as Record<string, unknown>));
    if (key === 'OR' && Array.isArray(value))
      return value.some((f) => matchesFilter(memory, f as Record<string, unknown>));
    if ((ENTITY_KEYS as readonly string[]).includes(key))
      return value === '*' || memory[key as keyof FakeMemory] === value;
    return memory.metadata?.[key] === value;
  });
}

/** Whether a filter names at least one entity (the Platform refuses searches that do not). */
export function namesEntity(filter: unknown): boolean {
  if (typeof filter !== 'object' || filter === null) return false;
  return Object.entries(filter).some(([key, value]) =>
    (key === 'AND' || key === 'OR') && Array.isArray(value)
      ? value.some(namesEntity)
      : (ENTITY_KEYS as readonly string[]).includes(key) && typeof value === 'string' && value !== '',
  );
}

/**
 * Keyword relevance standing in for Mem0's vector search: the share of the query's content words
 * found in the memory. Nothing scores above 0 when no word matches, so an unrelated query finds nothing.
 */
export function searchMemories(
  memories: readonly FakeMemory[],
  query: string,
  options: { topK: number; threshold: number },
): Array<FakeMemory & { score: number }> {
  const wanted = [...new Set(words(query))];
  if (wanted.length === 0) return [];
  return memories
    .map((memory) => {
      const have = new Set(words(memory.memory));
      const matched = wanted.filter((w) => have.has(w)).length;
      return { ...memory, score: Number((matched / wanted.length).toFixed(4)) };
    })
    .filter((hit) => hit.score > 0 && hit.score >= options.threshold)
    .sort((a, b) => b.score - a.score || a.created_at.localeCompare(b.created_at))
    .slice(0, Math.max(1, options.topK));
}

export type Entities = Partial<Record<(typeof ENTITY_KEYS)[number], string>>;

/** The entity ids (`user_id`, …) a request names, from its body or its query. */
export function entitiesOf(source: (key: string) => unknown): Entities {
  const entities: Entities = {};
  for (const key of ENTITY_KEYS) {
    const value = source(key);
    if (typeof value === 'string' && value !== '') entities[key] = value;
  }
  return entities;
}

/** A memory as the API returns it (the dedupe hash stays inside). */
export function toWire({ hash: _hash, ...rest }: FakeMemory): Omit<FakeMemory, 'hash'> {
  return rest;
}

/** Change a memory's text and/or metadata, with its history entry. */
export function updateMemory(
  state: FakeMem0State,
  memory: FakeMemory,
  change: { text?: string; metadata?: Record<string, unknown> },
  now: string,
): void {
  const old = memory.memory;
  if (change.text !== undefined) memory.memory = change.text;
  if (change.metadata !== undefined) memory.metadata = change.metadata;
  memory.updated_at = now;
  state.history.push(historyEntry(state, memory, 'UPDATE', old, memory.memory, now));
}

/** Delete one memory, with its history entry. */
export function deleteMemory(state: FakeMem0State, memory: FakeMemory, now: string): void {
  state.memories = state.memories.filter((m) => m !== memory);
  state.history.push(historyEntry(state, memory, 'DELETE', memory.memory, null, now));
}
