import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LocomoTurn, Retriever, RetrieverSession } from '../locomo/types';
import { FILL_K, topKFill } from '../precision/fill';
import { dirBytes } from '../providers';
import { loadSessionStoreClass } from './builtin-shape';
import { queryTerms } from './fts-query';

/**
 * Builtin session search over LoCoMo: each LoCoMo session is a session of the builtin SessionStore
 * (`state.db`, the reference schema), each turn a user message stamped with the session date. The
 * question goes verbatim through `searchMessages` — the FTS5 search (and query sanitiser) under the
 * `session_search` tool — and message ids map back to dialog ids.
 */
export async function createBuiltinSessionRetriever(
  queryMode: 'verbatim' | 'or-keywords' = 'verbatim',
): Promise<Retriever> {
  const SessionStore = await loadSessionStoreClass();
  // `or-keywords` sends what the session_search description teaches a model to send for broad
  // recall ("a OR b OR c"), built with the baseline's tokenizer, so store ranking is measured
  // apart from the verbatim-question protocol.
  const toQuery = (q: string) => (queryMode === 'verbatim' ? q : queryTerms(q).join(' OR '));
  return {
    name: queryMode === 'verbatim' ? 'builtin-session-search' : 'builtin-session-search-or',
    description:
      queryMode === 'verbatim'
        ? `builtin SessionStore (state.db, FTS5) searchMessages with the question verbatim; one session per LoCoMo session; no prefetch of its own, measured as its top ${FILL_K} injected`
        : "same store, query = the question's keywords OR-joined (as the session_search tool description teaches)",
    async open(): Promise<RetrieverSession> {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-bench-builtin-'));
      const store = new SessionStore({ dbPath: path.join(dir, 'state.db') });
      const byMessageId = new Map<number, string>();
      const textOf = new Map<string, string>();
      const search = async (query: string, k: number) => {
        const out: string[] = [];
        for (const hit of store.searchMessages(toQuery(query), { limit: k })) {
          const id = byMessageId.get(hit.id);
          if (id !== undefined && !out.includes(id)) out.push(id);
        }
        return out;
      };
      return {
        async ingest(turns: LocomoTurn[]) {
          for (const t of turns) textOf.set(t.diaId, t.text);
          const bySession = new Map<number, LocomoTurn[]>();
          for (const t of turns) {
            const list = bySession.get(t.sessionIndex) ?? [];
            list.push(t);
            bySession.set(t.sessionIndex, list);
          }
          for (const [n, list] of bySession) {
            const sid = `${list[0]!.conversationId}-s${n}`;
            const parsed = Date.parse(list[0]!.sessionDate);
            const base = Number.isFinite(parsed) ? parsed / 1000 : n * 86_400;
            store.createSession(sid, { source: 'cli', startedAt: base });
            const messages = list.map((t, i) => ({ role: 'user', content: t.text, timestamp: base + i }));
            const ids = store.appendMessages
              ? store.appendMessages(sid, messages)
              : messages.map((m) => store.appendMessage(sid, m));
            for (const [i, id] of ids.entries()) byMessageId.set(id, list[i]!.diaId);
          }
        },
        search,
        // Builtin has no prefetch: this is what its search would inject as a fixed top-k fill.
        prefetch: topKFill(search, textOf),
        diskBytes: () => dirBytes(dir),
        async close() {
          store.close();
          fs.rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  };
}
