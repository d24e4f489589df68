/**
 * The `<supermemory-context>` block the model sees before a turn, as the reference renders it:
 * persistent profile facts, recent context, relevant memories with age and similarity.
 */
import { neutralizeMemoryText } from '@hermes-memory/core';
import type { Profile } from './client';

const INTRO =
  'The following is background context from long-term memory (Supermemory). Use it silently to ' +
  'inform your answer when relevant; do not force memories into the conversation or mention this block.';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Profile facts join the block on turn 0–1 and every `frequency` turns; search results always. */
export function includeProfile(turn: number, frequency: number): boolean {
  return turn <= 1 || turn % frequency === 0;
}

/**
 * Render the block, or '' when there is nothing to say. Lists are deduplicated by exact text
 * across static → dynamic → search (the first occurrence wins) and each is capped at `max`.
 */
export function formatRecallBlock(
  profile: Profile,
  options: { withProfile: boolean; max: number; now: number },
): { text: string; count: number } {
  const seen = new Set<string>();
  const take = <T>(items: readonly T[], text: (item: T) => string): T[] => {
    const out: T[] = [];
    for (const item of items) {
      const key = text(item).trim();
      if (key === '' || seen.has(key)) continue;
      seen.add(key);
      out.push(item);
      if (out.length >= options.max) break;
    }
    return out;
  };
  const statics = options.withProfile ? take(profile.static, (s) => s) : [];
  const dynamics = options.withProfile ? take(profile.dynamic, (s) => s) : [];
  const results = take(profile.results, (r) => r.memory);
  const sections: string[] = [];
  const line = (text: string) => `- ${neutralizeMemoryText(text.replace(/\s+/g, ' ').trim())}`;
  if (statics.length > 0) sections.push(`## User Profile (Persistent)\n${statics.map(line).join('\n')}`);
  if (dynamics.length > 0) sections.push(`## Recent Context\n${dynamics.map(line).join('\n')}`);
  if (results.length > 0) {
    const lines = results.map((r) => {
      const age = r.updatedAt ? `[${relativeTime(r.updatedAt, options.now)}] ` : '';
      const pct = r.similarity !== undefined ? `[${Math.round(r.similarity * 100)}%] ` : '';
      return `- ${age}${pct}${neutralizeMemoryText(r.memory.replace(/\s+/g, ' ').trim())}`;
    });
    sections.push(`## Relevant Memories\n${lines.join('\n')}`);
  }
  if (sections.length === 0) return { text: '', count: 0 };
  const count = statics.length + dynamics.length + results.length;
  return {
    text: `<supermemory-context>\n${INTRO}\n\n${sections.join('\n\n')}\n</supermemory-context>`,
    count,
  };
}

/** "just now", "12m ago", "3h ago", "2d ago", else "05 Mar" (this year) or "05 Mar 2024". */
export function relativeTime(iso: string, now: number): string {
  const then = Date.parse(iso);
  if (!Number.isFinite(then)) return '';
  const minutes = Math.max(0, (now - then) / 60_000);
  if (minutes < 30) return 'just now';
  if (minutes < 60) return `${Math.floor(minutes)}m ago`;
  const hours = minutes / 60;
  if (hours < 24) return `${Math.floor(hours)}h ago`;
  const days = hours / 24;
  if (days < 7) return `${Math.floor(days)}d ago`;
  const date = new Date(then);
  const label = `${String(date.getUTCDate()).padStart(2, '0')} ${MONTHS[date.getUTCMonth()]}`;
  return date.getUTCFullYear() === new Date(now).getUTCFullYear()
    ? label
    : `${label} ${date.getUTCFullYear()}`;
}
