import { nowMs } from '../stats';
import { MRR_DEPTH, type QuestionScore, scoreQuestion } from './metrics';
import type { LocomoConversation, LocomoTurn, Retriever } from './types';

/** Per-retriever raw results of one LoCoMo run (§5.1). */
export interface LocomoRun {
  retriever: string;
  scores: QuestionScore[];
  /** Milliseconds per question (search call only). */
  queryMs: number[];
  /** Milliseconds per ingested turn, one entry per conversation (ingest time / turns). */
  ingestMsPerTurn: number[];
  turns: number;
  conversations: number;
  /** Questions dropped because their gold set was empty after normalisation. */
  dropped: number;
  /** Sum of per-conversation index sizes when the retriever reports them. */
  diskBytes: number | null;
}

export interface RunOptions {
  /** Depth asked of the retriever (≥ the largest k and the MRR depth). */
  depth?: number;
  /**
   * Haystack: before each conversation, ingest every turn of these other conversations (older
   * memories of other people on similar topics). Their ids are prefixed, so they are never gold.
   */
  haystack?: readonly LocomoConversation[];
  onProgress?: (message: string) => void;
}

/** Run the protocol for one retriever: a fresh store per conversation, chronological ingest, verbatim questions. */
export async function runLocomo(
  retriever: Retriever,
  conversations: readonly LocomoConversation[],
  options: RunOptions = {},
): Promise<LocomoRun> {
  const depth = options.depth ?? MRR_DEPTH;
  const run: LocomoRun = {
    retriever: retriever.name,
    scores: [],
    queryMs: [],
    ingestMsPerTurn: [],
    turns: 0,
    conversations: 0,
    dropped: 0,
    diskBytes: null,
  };
  for (const conv of conversations) {
    const session = await retriever.open(conv.conversationId);
    try {
      const turns = [...haystackFor(conv, options.haystack ?? []), ...conv.turns];
      const t0 = nowMs();
      await session.ingest(turns);
      const ingestMs = nowMs() - t0;
      run.ingestMsPerTurn.push(turns.length > 0 ? ingestMs / turns.length : 0);
      run.turns += turns.length;
      run.conversations++;
      if (session.diskBytes) run.diskBytes = (run.diskBytes ?? 0) + session.diskBytes();
      const textById = new Map(conv.turns.map((t) => [t.diaId, t.text]));
      const textOf = (id: string) => textById.get(id) ?? '';
      for (const q of conv.questions) {
        if (q.gold.length === 0) {
          run.dropped++;
          continue;
        }
        const t1 = nowMs();
        const ranked = await session.search(q.question, depth);
        run.queryMs.push(nowMs() - t1);
        run.scores.push(scoreQuestion(q.category, dedupe(ranked).slice(0, depth), q.gold, textOf));
      }
      options.onProgress?.(`${retriever.name}: ${conv.conversationId} (${conv.turns.length} turns) done`);
    } finally {
      await session.close();
    }
  }
  return run;
}

/**
 * The other conversations' turns, as distinct sessions of the same store: ids become
 * `<conversation>/<dia id>` (never a gold id) and session numbers are moved past the conversation's own.
 */
function haystackFor(conv: LocomoConversation, pool: readonly LocomoConversation[]): LocomoTurn[] {
  const out: LocomoTurn[] = [];
  let offset = 1000;
  for (const other of pool) {
    if (other.conversationId === conv.conversationId) continue;
    for (const t of other.turns)
      out.push({ ...t, diaId: `${other.conversationId}/${t.diaId}`, sessionIndex: offset + t.sessionIndex });
    offset += 1000;
  }
  return out;
}

function dedupe(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}
