import fs from 'node:fs';
import type { LocomoConversation, LocomoQuestion, LocomoTurn } from './types';

/** Evidence normalisation (benchmarks.md §2.1): split on `[;,\s]`, then match `/D:?(\d+):(\d+)/`. */
export function normalizeEvidence(raw: readonly unknown[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const entry of raw) {
    if (typeof entry !== 'string') continue;
    for (const piece of entry.split(/[;,\s]+/)) {
      const m = /D:?(\d+):(\d+)/.exec(piece);
      if (!m) continue;
      const id = `D${Number(m[1])}:${Number(m[2])}`;
      if (!seen.has(id)) {
        seen.add(id);
        out.push(id);
      }
    }
  }
  return out;
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** Parse LoCoMo's `"h:mm am on D Month, YYYY"` to ISO 8601 (UTC, no zone in the data); null when it does not match. */
export function parseLocomoDate(raw: string): string | null {
  const m = /^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/i.exec(raw);
  if (!m) return null;
  let hour = Number(m[1]) % 12;
  if (m[3]!.toLowerCase() === 'pm') hour += 12;
  const month = MONTHS.indexOf(m[5]!.toLowerCase());
  if (month < 0) return null;
  const date = new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2])));
  return date.toISOString();
}

/** The text a turn is stored as (§5.1 step 3). */
export function turnText(speaker: string, text: string, blipCaption: unknown): string {
  const base = `${speaker}: ${text}`;
  return typeof blipCaption === 'string' && blipCaption.trim() !== ''
    ? `${base} [shares ${blipCaption}]`
    : base;
}

function asRecord(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`LoCoMo: ${what} is not an object`);
  }
  return value as Record<string, unknown>;
}

/** Parse one LoCoMo sample (`locomo10.json` element). */
export function parseLocomoSample(sample: unknown, index: number): LocomoConversation {
  const s = asRecord(sample, `sample #${index}`);
  const conversationId = String(s['sample_id'] ?? `conv-${index}`);
  const conv = asRecord(s['conversation'], `${conversationId}.conversation`);
  const sessionNumbers = Object.keys(conv)
    .map((k) => /^session_(\d+)$/.exec(k))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);

  const turns: LocomoTurn[] = [];
  let sessionCount = 0;
  for (const n of sessionNumbers) {
    const list = conv[`session_${n}`];
    if (!Array.isArray(list) || list.length === 0) continue; // dated sessions without turns are skipped
    sessionCount++;
    const rawDate =
      typeof conv[`session_${n}_date_time`] === 'string' ? (conv[`session_${n}_date_time`] as string) : '';
    const sessionDate = parseLocomoDate(rawDate) ?? rawDate;
    for (const t of list) {
      const turn = asRecord(t, `${conversationId} session_${n} turn`);
      const speaker = String(turn['speaker'] ?? '');
      const ids = normalizeEvidence([turn['dia_id']]);
      const diaId = ids[0] ?? String(turn['dia_id'] ?? '');
      turns.push({
        conversationId,
        diaId,
        speaker,
        text: turnText(speaker, String(turn['text'] ?? ''), turn['blip_caption']),
        sessionIndex: n,
        sessionDate,
        turnIndex: turns.length,
      });
    }
  }

  const known = new Set(turns.map((t) => t.diaId));
  const qa = Array.isArray(s['qa']) ? (s['qa'] as unknown[]) : [];
  const questions: LocomoQuestion[] = qa.map((q, qaIndex) => {
    const item = asRecord(q, `${conversationId}.qa[${qaIndex}]`);
    const rawEvidence = Array.isArray(item['evidence']) ? (item['evidence'] as unknown[]).map(String) : [];
    return {
      conversationId,
      qaIndex,
      question: String(item['question'] ?? ''),
      category: Number(item['category']),
      gold: normalizeEvidence(rawEvidence).filter((id) => known.has(id)),
      rawEvidence,
    };
  });

  return {
    conversationId,
    index,
    speakerA: String(conv['speaker_a'] ?? ''),
    speakerB: String(conv['speaker_b'] ?? ''),
    turns,
    questions,
    sessionCount,
  };
}

export function parseLocomo(data: unknown): LocomoConversation[] {
  if (!Array.isArray(data)) throw new Error('LoCoMo: top level must be an array of samples');
  return data.map((sample, i) => parseLocomoSample(sample, i));
}

export function loadLocomo(file: string): LocomoConversation[] {
  return parseLocomo(JSON.parse(fs.readFileSync(file, 'utf8')));
}
