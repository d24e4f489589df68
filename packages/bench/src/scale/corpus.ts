import { loadLocomo } from '../locomo/loader';
import type { LocomoTurn } from '../locomo/types';
import { LOCOMO_FILE_REL, sharedPath } from '../paths';

/** Deterministic PRNG (mulberry32) so every run ingests the same corpus in the same order. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface ScaleCorpus {
  docs: LocomoTurn[];
  queries: string[];
}

/**
 * N synthetic memories with real conversational vocabulary: each is a speaker plus two sentences
 * drawn (seeded) from the LoCoMo turns, so term statistics look like chat, not random words.
 * Queries are LoCoMo questions, also drawn seeded. `source` is the LoCoMo file (the benchmark data
 * in ../shared by default; tests pass a committed fixture).
 */
export function buildScaleCorpus(
  n: number,
  queryCount = 200,
  seed = 7,
  source: string = sharedPath(...LOCOMO_FILE_REL),
): ScaleCorpus {
  const convs = loadLocomo(source);
  const sentences: Array<{ speaker: string; text: string }> = [];
  for (const c of convs) {
    for (const t of c.turns) {
      const body = t.text.slice(t.speaker.length + 2);
      for (const s of body.split(/(?<=[.!?])\s+/))
        if (s.trim().length > 12) sentences.push({ speaker: t.speaker, text: s.trim() });
    }
  }
  const questions = convs.flatMap((c) => c.questions.map((q) => q.question));
  const rnd = mulberry32(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  const docs: LocomoTurn[] = [];
  const base = Date.UTC(2023, 0, 1);
  for (let i = 0; i < n; i++) {
    const a = pick(sentences);
    const b = pick(sentences);
    const session = Math.floor(i / 100) + 1;
    docs.push({
      conversationId: 'scale',
      diaId: `D${session}:${(i % 100) + 1}`,
      speaker: a.speaker,
      text: `${a.speaker}: ${a.text} ${b.text}`,
      sessionIndex: session,
      sessionDate: new Date(base + session * 3_600_000).toISOString(),
      turnIndex: i,
    });
  }
  const queries: string[] = [];
  for (let i = 0; i < queryCount; i++) queries.push(pick(questions));
  return { docs, queries };
}
