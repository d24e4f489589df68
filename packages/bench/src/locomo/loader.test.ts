import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { applyAudit, loadAudit } from './audit';
import { loadLocomo, normalizeEvidence, parseLocomoDate, turnText } from './loader';

// A LoCoMo-shaped fixture written for the tests; the real development set is read only by `pnpm bench`.
const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '__fixtures__');

describe('evidence normalisation', () => {
  it('handles malformed and multi-id strings (benchmarks.md §2.1)', () => {
    expect(normalizeEvidence(['D8:6; D9:17', 'D9:1 D4:4 D4:6', 'D:11:26', 'D30:05', 'D', 'D8:6'])).toEqual([
      'D8:6',
      'D9:17',
      'D9:1',
      'D4:4',
      'D4:6',
      'D11:26',
      'D30:5',
    ]);
  });
  it('parses session timestamps', () => {
    expect(parseLocomoDate('4:04 pm on 20 January, 2023')).toBe('2023-01-20T16:04:00.000Z');
    expect(parseLocomoDate('12:30 am on 1 May, 2023')).toBe('2023-05-01T00:30:00.000Z');
    expect(parseLocomoDate('yesterday')).toBeNull();
  });
  it('builds the ingested text with the image caption', () => {
    expect(turnText('Jon', 'Look!', 'a photo of a studio')).toBe('Jon: Look! [shares a photo of a studio]');
    expect(turnText('Jon', 'Hi', undefined)).toBe('Jon: Hi');
  });
});

describe('LoCoMo loader (fixture in the locomo10.json format)', () => {
  const convs = loadLocomo(path.join(fixtures, 'tiny.json'));

  it('loads every sample with its turns, sessions and questions', () => {
    expect(
      convs.map((c) => [c.conversationId, c.index, c.turns.length, c.sessionCount, c.questions.length]),
    ).toEqual([
      ['conv-a', 0, 7, 2, 6],
      ['conv-b', 1, 3, 1, 2],
      ['conv-c', 2, 2, 1, 1],
    ]);
    const c = convs[0]!;
    expect([c.speakerA, c.speakerB]).toEqual(['Maya', 'Tomas']);
    expect(c.questions.map((q) => q.category)).toEqual([2, 1, 4, 5, 3, 4]);
  });

  it('keeps turn order, session numbers and dates; skips the empty dated session', () => {
    const c = convs[0]!;
    expect(c.turns.map((t) => t.turnIndex)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(c.turns.map((t) => t.sessionIndex)).toEqual([1, 1, 1, 1, 3, 3, 3]);
    expect(c.turns[0]).toMatchObject({
      diaId: 'D1:1',
      speaker: 'Maya',
      sessionDate: '2023-05-08T13:56:00.000Z',
    });
    expect(c.turns[4]!.sessionDate).toBe('2023-07-03T20:18:00.000Z');
    expect(c.turns[0]!.text).toBe('Maya: Hi Tomas! How was your week?');
  });

  it('normalises malformed dialog ids and stores the image caption with the turn', () => {
    const c = convs[0]!;
    expect(c.turns.map((t) => t.diaId)).toEqual(['D1:1', 'D1:2', 'D1:3', 'D1:4', 'D3:1', 'D3:2', 'D3:3']);
    expect(c.turns[2]!.text).toBe(
      'Maya: Nice! I started baking sourdough bread this month. [shares a photo of a round sourdough loaf on a wooden board]',
    );
    expect(c.turns.filter((t) => t.text.includes(' [shares ')).length).toBe(1);
  });

  it('splits combined evidence and drops ids that name no turn', () => {
    const [q0, q1, , , q4] = convs[0]!.questions;
    expect(q0!.gold).toEqual(['D1:3']);
    expect(q1!.gold).toEqual(['D1:3', 'D3:2']);
    expect(q4!.rawEvidence).toEqual(['D9:9']);
    expect(q4!.gold).toEqual([]);
    const usable = convs.flatMap((c) => c.questions).filter((q) => q.category <= 4 && q.gold.length > 0);
    expect(usable).toHaveLength(7);
  });

  it('applies the audited evidence only where the question text matches', () => {
    const { conversations, changed } = applyAudit(convs, loadAudit(path.join(fixtures, 'audit')));
    expect(changed).toBe(1);
    const q = conversations[0]!.questions;
    expect(q[5]!.gold).toEqual(['D3:3']); // corrected
    expect(q[2]!.gold).toEqual(['D3:1']); // audit entry for another question text: ignored
    expect(q[0]!.gold).toEqual(['D1:3']); // same evidence: not counted as a change
    expect(conversations[1]).toEqual(convs[1]);
  });
});
