import fs from 'node:fs';

/**
 * LongMemEval (Wu et al., ICLR 2025) in the official format (benchmarks.md §2.3), prepared for the
 * official retrieval protocol (§5.2): per question a fresh index over its own haystack; session
 * documents are the USER turns joined with spaces; turn documents are user turns with id
 * `<session_id>_<turn index, 1-based over all turns>`.
 */

export interface LmeMessage {
  role: 'user' | 'assistant';
  content: string;
  hasAnswer: boolean;
}

export interface LmeDocument {
  id: string;
  sessionId: string;
  text: string;
  /** Haystack date of the session (raw, e.g. "2023/05/20 (Sat) 02:21"). */
  date: string;
}

export interface LmeInstance {
  questionId: string;
  questionType: string;
  question: string;
  answer: string;
  questionDate: string;
  abstention: boolean;
  sessions: Array<{ id: string; date: string; messages: LmeMessage[] }>;
  answerSessionIds: string[];
  /** Session documents (user turns only), in haystack order. */
  sessionDocs: LmeDocument[];
  /** Turn documents (user turns only). */
  turnDocs: LmeDocument[];
  /** Gold sessions: id contains "answer" AND ≥1 user turn has `has_answer` (others are "noans" upstream). */
  goldSessions: string[];
  /** Gold turns: user turns with `has_answer`. */
  goldTurns: string[];
  /** false for `_abs` questions and questions with no user-side evidence (skipped in scoring). */
  scorable: boolean;
}

function str(v: unknown, what: string): string {
  if (typeof v !== 'string') throw new Error(`LongMemEval: ${what} must be a string`);
  return v;
}

export function parseLongMemEvalInstance(raw: unknown, index: number): LmeInstance {
  if (typeof raw !== 'object' || raw === null)
    throw new Error(`LongMemEval: item #${index} is not an object`);
  const r = raw as Record<string, unknown>;
  const questionId = str(r['question_id'], `item #${index} question_id`);
  const ids = r['haystack_session_ids'];
  const dates = r['haystack_dates'];
  const sessions = r['haystack_sessions'];
  if (!Array.isArray(ids) || !Array.isArray(sessions) || ids.length !== sessions.length) {
    throw new Error(
      `LongMemEval: ${questionId} haystack_session_ids and haystack_sessions must be arrays of equal length`,
    );
  }
  const parsedSessions = sessions.map((s, i) => {
    if (!Array.isArray(s)) throw new Error(`LongMemEval: ${questionId} session #${i} is not an array`);
    return {
      id: String(ids[i]),
      date: Array.isArray(dates) && typeof dates[i] === 'string' ? (dates[i] as string) : '',
      messages: s.map((m, j): LmeMessage => {
        const msg = (m ?? {}) as Record<string, unknown>;
        const role = msg['role'] === 'assistant' ? 'assistant' : msg['role'] === 'user' ? 'user' : null;
        if (role === null)
          throw new Error(`LongMemEval: ${questionId} session #${i} turn #${j} has no user/assistant role`);
        return { role, content: String(msg['content'] ?? ''), hasAnswer: msg['has_answer'] === true };
      }),
    };
  });
  const sessionDocs: LmeDocument[] = [];
  const turnDocs: LmeDocument[] = [];
  const goldSessions: string[] = [];
  const goldTurns: string[] = [];
  for (const s of parsedSessions) {
    const userTurns = s.messages.filter((m) => m.role === 'user');
    sessionDocs.push({
      id: s.id,
      sessionId: s.id,
      text: userTurns.map((m) => m.content).join(' '),
      date: s.date,
    });
    s.messages.forEach((m, j) => {
      if (m.role !== 'user') return;
      const id = `${s.id}_${j + 1}`;
      turnDocs.push({ id, sessionId: s.id, text: m.content, date: s.date });
      if (m.hasAnswer) goldTurns.push(id);
    });
    if (s.id.includes('answer') && userTurns.some((m) => m.hasAnswer)) goldSessions.push(s.id);
  }
  const abstention = questionId.endsWith('_abs');
  return {
    questionId,
    questionType: String(r['question_type'] ?? ''),
    question: str(r['question'], `${questionId} question`),
    answer: String(r['answer'] ?? ''),
    questionDate: String(r['question_date'] ?? ''),
    abstention,
    sessions: parsedSessions,
    answerSessionIds: Array.isArray(r['answer_session_ids'])
      ? (r['answer_session_ids'] as unknown[]).map(String)
      : [],
    sessionDocs,
    turnDocs,
    goldSessions,
    goldTurns,
    scorable: !abstention && goldSessions.length > 0,
  };
}

export function parseLongMemEval(data: unknown): LmeInstance[] {
  if (!Array.isArray(data)) throw new Error('LongMemEval: top level must be an array of instances');
  return data.map((d, i) => parseLongMemEvalInstance(d, i));
}

export function loadLongMemEval(file: string): LmeInstance[] {
  return parseLongMemEval(JSON.parse(fs.readFileSync(file, 'utf8')));
}

/**
 * The official `turn2session` conversion: walk a turn ranking and widen until `k` distinct sessions
 * are covered; returns the ranked session ids.
 */
export function turnRankingToSessions(
  turnIds: readonly string[],
  turnToSession: (id: string) => string,
): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const id of turnIds) {
    const s = turnToSession(id);
    if (!seen.has(s)) {
      seen.add(s);
      out.push(s);
    }
  }
  return out;
}

/** Binary nDCG@k where any gold hit counts (LongMemEval's `ndcg_any`). */
export function ndcgAny(ranked: readonly string[], gold: readonly string[], k: number): number {
  const g = new Set(gold);
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    if (g.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let idcg = 0;
  for (let i = 0; i < Math.min(k, g.size); i++) idcg += 1 / Math.log2(i + 2);
  return idcg === 0 ? 0 : dcg / idcg;
}
