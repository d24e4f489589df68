/**
 * Stores and questions for the precision protocol: LoCoMo (each conversation's own questions,
 * the other conversations' questions, and the off-topic set) and live-agent sessions (facts written
 * seconds apart in one session, their questions, the other sessions' questions, the off-topic set).
 */
import type { LocomoConversation, LocomoTurn } from '../locomo/types';
import type { LiveSession } from './data';
import type { Probe, ProbeStore, Split } from './types';

/**
 * The tuning split of decision 0404: relevance and the prefetch bar were chosen looking only at
 * LoCoMo conversations 1–4, the first live session and the even-numbered off-topic questions; the
 * rest is held out, and the report shows both sides.
 */
export const DEV_SPLIT: {
  locomo: readonly string[];
  live: readonly string[];
  offTopic: (index: number) => boolean;
} = {
  locomo: ['conv-26', 'conv-30', 'conv-41', 'conv-42'],
  live: ['priya'],
  /** Off-topic questions at even positions (0, 2, …) of `data/off-topic-questions.json`. */
  offTopic: (index: number) => index % 2 === 0,
};

const side = (dev: boolean): Split => (dev ? 'dev' : 'held-out');

/** Off-topic questions against a store: on the store's side when the question is on it too. */
function offTopicProbes(offTopic: readonly string[], storeDev: boolean): Probe[] {
  return offTopic.map((query, i) => ({
    query,
    kind: 'off-topic',
    gold: [],
    split: DEV_SPLIT.offTopic(i) === storeDev ? side(storeDev) : undefined,
  }));
}

/** Answerable = categories 1–4 with gold (the recall headline's set; cat 5's premise is false). */
const ANSWERABLE = new Set([1, 2, 3, 4]);

/**
 * One store per conversation. `cross`: `all` asks every other conversation's questions, `next`
 * only the following conversation's (a smaller set, for the threshold sweep).
 */
export function locomoProbeStores(
  conversations: readonly LocomoConversation[],
  offTopic: readonly string[],
  cross: 'all' | 'next' = 'all',
): ProbeStore[] {
  return conversations.map((conv, i) => {
    const dev = DEV_SPLIT.locomo.includes(conv.conversationId);
    const split = side(dev);
    return {
      id: conv.conversationId,
      turns: conv.turns,
      probes: [
        ...conv.questions
          .filter((q) => ANSWERABLE.has(q.category) && q.gold.length > 0)
          .map(
            (q): Probe => ({
              query: q.question,
              kind: 'answerable',
              gold: q.gold,
              category: q.category,
              split,
            }),
          ),
        ...(cross === 'all'
          ? conversations.filter((other) => other !== conv)
          : conversations.length > 1
            ? [conversations[(i + 1) % conversations.length]!]
            : []
        )
          .flatMap((other) => other.questions.filter((q) => ANSWERABLE.has(q.category)))
          .map((q): Probe => ({ query: q.question, kind: 'cross', gold: [], split })),
        ...offTopicProbes(offTopic, dev),
      ],
    };
  });
}

/** A live session's facts as stored items: written one after the other, "now" (no dates). */
export function liveTurns(session: LiveSession): LocomoTurn[] {
  return session.facts.map((f, i) => ({
    conversationId: session.id,
    diaId: f.id,
    speaker: '',
    text: f.text,
    sessionIndex: 1,
    sessionDate: '',
    turnIndex: i,
  }));
}

export function liveProbeStores(sessions: readonly LiveSession[], offTopic: readonly string[]): ProbeStore[] {
  return sessions.map((session) => {
    const dev = DEV_SPLIT.live.includes(session.id);
    const split = side(dev);
    return {
      id: session.id,
      turns: liveTurns(session),
      probes: [
        ...session.questions.map((q): Probe => ({ query: q.q, kind: 'answerable', gold: q.gold, split })),
        ...sessions
          .filter((other) => other !== session)
          .flatMap((other) =>
            other.questions.map((q): Probe => ({ query: q.q, kind: 'cross', gold: [], split })),
          ),
        ...offTopicProbes(offTopic, dev),
      ],
    };
  });
}
