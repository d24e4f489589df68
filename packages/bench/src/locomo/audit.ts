import fs from 'node:fs';
import path from 'node:path';
import { normalizeEvidence } from './loader';
import type { LocomoConversation } from './types';

/** One audited answer-key problem (dial481/locomo-audit `errors_conv_<i>.json`). */
export interface AuditEntry {
  conversationIndex: number;
  qaIndex: number;
  question: string;
  errorType: string;
  correctEvidence: string[];
}

/** Read every `errors_conv_<i>.json` in `dir`. `question_id` is `locomo_<conv index>_qa<idx>` (0-based). */
export function loadAudit(dir: string): AuditEntry[] {
  const out: AuditEntry[] = [];
  for (const name of fs.readdirSync(dir).sort()) {
    if (!/^errors_conv_\d+\.json$/.test(name)) continue;
    const list = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as unknown;
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const e = raw as Record<string, unknown>;
      const m = /^locomo_(\d+)_qa(\d+)$/.exec(String(e['question_id'] ?? ''));
      if (!m || !Array.isArray(e['correct_evidence'])) continue;
      out.push({
        conversationIndex: Number(m[1]),
        qaIndex: Number(m[2]),
        question: String(e['question'] ?? ''),
        errorType: String(e['error_type'] ?? ''),
        correctEvidence: normalizeEvidence(e['correct_evidence'] as unknown[]),
      });
    }
  }
  return out;
}

/**
 * The sensitivity variant of §5.1 step 1: `evidence := correct_evidence` where the audit gives one that
 * differs. Returns new conversations and how many questions changed. Question text is checked so a
 * misaligned audit file cannot silently relabel the wrong item.
 */
export function applyAudit(
  conversations: readonly LocomoConversation[],
  audit: readonly AuditEntry[],
): { conversations: LocomoConversation[]; changed: number } {
  let changed = 0;
  const byKey = new Map(audit.map((a) => [`${a.conversationIndex}/${a.qaIndex}`, a]));
  const next = conversations.map((conv) => {
    const known = new Set(conv.turns.map((t) => t.diaId));
    return {
      ...conv,
      questions: conv.questions.map((q) => {
        const a = byKey.get(`${conv.index}/${q.qaIndex}`);
        if (!a || a.question.trim() !== q.question.trim() || a.correctEvidence.length === 0) return q;
        const gold = a.correctEvidence.filter((id) => known.has(id));
        const same = gold.length === q.gold.length && gold.every((id) => q.gold.includes(id));
        if (same) return q;
        changed++;
        return { ...q, gold };
      }),
    };
  });
  return { conversations: next, changed };
}
