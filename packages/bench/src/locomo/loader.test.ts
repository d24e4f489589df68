import { describe, expect, it } from 'vitest';
import { LOCOMO_AUDIT_DIR_REL, LOCOMO_FILE_REL, sharedPath } from '../paths';
import { applyAudit, loadAudit } from './audit';
import { loadLocomo, normalizeEvidence, parseLocomoDate, turnText } from './loader';

const file = sharedPath(...LOCOMO_FILE_REL);

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

describe('LoCoMo loader on the dev file', () => {
  const convs = loadLocomo(file);

  it('loads the smoke subset conv-30 with the documented counts', () => {
    expect(convs.map((c) => c.conversationId)).toEqual([
      'conv-26',
      'conv-30',
      'conv-41',
      'conv-42',
      'conv-43',
      'conv-44',
      'conv-47',
    ]);
    const c = convs.find((x) => x.conversationId === 'conv-30')!;
    expect(c.turns).toHaveLength(369);
    expect(c.questions).toHaveLength(105);
    expect(c.sessionCount).toBe(19);
    expect(c.speakerA).toBe('Jon');
    const byCat = (n: number) => c.questions.filter((q) => q.category === n).length;
    expect([byCat(1), byCat(2), byCat(3), byCat(4), byCat(5)]).toEqual([11, 26, 0, 44, 24]);
    expect(c.turns.filter((t) => t.text.includes(' [shares ')).length).toBe(72);
    expect(c.questions.every((q) => q.gold.length > 0)).toBe(true);
    const first = c.turns[0]!;
    expect(first).toMatchObject({ diaId: 'D1:1', speaker: 'Gina', sessionIndex: 1, turnIndex: 0 });
    expect(first.sessionDate).toBe('2023-01-20T16:04:00.000Z');
    expect(first.text.startsWith('Gina: Hey Jon!')).toBe(true);
    expect(c.turns.map((t) => t.turnIndex)).toEqual(c.turns.map((_, i) => i));
  });

  it('has 1,033 usable category 1–4 questions over the 7 conversations (benchmarks.md §5.4)', () => {
    const usable = convs.flatMap((c) => c.questions).filter((q) => q.category <= 4 && q.gold.length > 0);
    expect(usable).toHaveLength(1033);
  });

  it('applies the audited evidence only where the question text matches', () => {
    const dir = sharedPath(...LOCOMO_AUDIT_DIR_REL);
    const { conversations, changed } = applyAudit(convs, loadAudit(dir));
    expect(changed).toBeGreaterThan(0);
    const q = conversations[1]!.questions[24]!;
    expect(q.question).toContain('promote his business');
    expect(q.gold).toContain('D8:13');
    expect(q.gold).not.toContain('D8:4');
  });
});
