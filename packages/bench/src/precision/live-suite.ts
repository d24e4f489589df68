/**
 * The live-agent suite: what reaches the prompt when an agent has written thirty unrelated facts in
 * one working session (seconds apart, through its tools, as LoCoMo's dated chat logs never are),
 * then gets ordinary questions, the other session's questions and off-topic ones. Every stack runs
 * through a real `MemoryManager` with the builtin provider; the knob of each is swept for a curve.
 */
import type { LocomoConversation } from '../locomo/types';
import { groupByCategory } from '../locomo/metrics';
import { runLocomo } from '../locomo/protocol';
import { table } from '../report/markdown';
import type { SuiteContext, SuiteResult } from '../report/suite';
import { LIVE_STACKS, loadRetrievers } from '../retrievers/registry';
import { type LiveSession, loadLiveSessions, loadOffTopicQuestions } from './data';
import { type PrecisionResult, measurePrecision } from './measure';
import { curveSvgs, curveTable, precisionHeadline, precisionTable, splitTable } from './report';
import { liveProbeStores, liveTurns } from './scenarios';

export interface LiveStackResult extends PrecisionResult {
  /** recall_any@1 / @5 of the stack's own search tool on the answerable questions. */
  searchAny1: number;
  searchAny5: number;
}

export interface LiveSuiteData {
  sessions: Array<{ id: string; facts: number; questions: number }>;
  offTopic: number;
  stacks: LiveStackResult[];
  unavailable: Array<{ stack: string; reason: string }>;
}

/** A live session as a one-conversation LoCoMo set, so the recall protocol scores its search. */
function asConversation(session: LiveSession, index: number): LocomoConversation {
  return {
    conversationId: session.id,
    index,
    speakerA: '',
    speakerB: '',
    turns: liveTurns(session),
    questions: session.questions.map((q, qaIndex) => ({
      conversationId: session.id,
      qaIndex,
      question: q.q,
      category: 4,
      gold: q.gold,
      rawEvidence: q.gold,
    })),
    sessionCount: 1,
  };
}

export async function runLiveSuite(ctx: SuiteContext): Promise<SuiteResult> {
  const started = Date.now();
  const sessions = loadLiveSessions();
  const offTopic = loadOffTopicQuestions();
  const stores = liveProbeStores(sessions, offTopic);
  const names = LIVE_STACKS.map((s) => s.name);
  const wanted = ctx.retrievers ? names.filter((n) => ctx.retrievers!.includes(n)) : names;
  const data: LiveSuiteData = {
    sessions: sessions.map((s) => ({ id: s.id, facts: s.facts.length, questions: s.questions.length })),
    offTopic: offTopic.length,
    stacks: [],
    unavailable: [],
  };
  for (const entry of await loadRetrievers(wanted, LIVE_STACKS)) {
    if ('unavailable' in entry) {
      data.unavailable.push({ stack: entry.name, reason: entry.unavailable });
      continue;
    }
    const r = entry.retriever;
    ctx.log(`live: ${r.name}`);
    const recall = groupByCategory((await runLocomo(r, sessions.map(asConversation), { depth: 5 })).scores)[
      'cat1-4'
    ];
    data.stacks.push({
      ...(await measurePrecision(r, stores)),
      searchAny1: recall.recallAny[1],
      searchAny5: recall.recallAny[5],
    });
  }
  return {
    suite: 'live',
    title: 'Live-agent session: what reaches the prompt',
    provenance: ctx.provenance,
    seconds: (Date.now() - started) / 1000,
    data,
    markdown: renderLive(data),
    headline:
      data.stacks.length > 0
        ? [
            `Live-agent session (30 facts written through MemoryManager, then questions): ${data.stacks.map(precisionHeadline).join('; ')}.`,
          ]
        : [],
    svgs: curveSvgs(data.stacks, 'live-prefetch', 'Live session prefetch'),
  };
}

function renderLive(data: LiveSuiteData): string {
  const lines = [
    '## Live-agent session: what reaches the prompt',
    '',
    `LoCoMo's turns are dated chat logs; a live agent writes its facts seconds apart in one session. Here each stack is a ` +
      '`MemoryManager` with the builtin provider and one external provider, as a user installs it; the model writes ' +
      `${data.sessions.map((s) => `${s.facts} facts (session \`${s.id}\`)`).join(' and ')} one after the other with its tools, then asks ` +
      `${data.sessions.map((s) => s.questions).join(' + ')} ordinary questions whose answer is one of them. Negatives: the other ` +
      `session's questions (cross) and the ${data.offTopic} off-topic questions. Data: \`packages/bench/data/live-sessions.json\`, ` +
      '`packages/bench/data/off-topic-questions.json` (written for this benchmark; tuning used the first session and the even-numbered ' +
      'off-topic questions, decision 0404; the second session and the odd-numbered ones are held out, shown apart below). What is measured is the fenced block `prefetchAll` returns (its fence and system note count in the characters).',
    '',
  ];
  if (data.stacks.length > 0) {
    lines.push(
      precisionTable(data.stacks.map((result) => ({ result }))),
      '',
      ...(data.stacks.some((s) => s.splits)
        ? [
            "**Tuning split**: **dev** = the first session with its questions, the other session's as cross and the even-numbered off-topic ones; **held-out** = the second session with its own, the first's and the odd-numbered ones.",
            '',
            splitTable(data.stacks),
            '',
          ]
        : []),
      "Search through the model's own tool on the same questions (recall_any): " +
        data.stacks
          .map((s) => `${s.retriever} @1 ${s.searchAny1.toFixed(3)}, @5 ${s.searchAny5.toFixed(3)}`)
          .join('; ') +
        '.',
      '',
      '![injected precision vs answer injected](live-prefetch-precision-recall.svg) ![false activation vs answer injected](live-prefetch-false-activation.svg)',
      '',
      curveTable(data.stacks),
      '',
    );
  }
  if (data.unavailable.length > 0)
    lines.push(
      table(
        ['stack', 'not measured'],
        data.unavailable.map((u) => [u.stack, u.reason]),
      ),
      '',
    );
  return lines.join('\n');
}
