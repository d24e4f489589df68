/**
 * The on-disk format of MEMORY.md / USER.md, byte-compatible with the reference: entries joined by
 * newline + "§" + newline. Entries may span lines; a lone "§" inside an entry is content.
 */
export const ENTRY_DELIMITER = '\n§\n';

export type MemoryTarget = 'memory' | 'user';
export const MEMORY_TARGETS: readonly MemoryTarget[] = ['memory', 'user'];

export const DEFAULT_MEMORY_CHAR_LIMIT = 2200;
export const DEFAULT_USER_CHAR_LIMIT = 1375;

export const FILE_NAMES: Readonly<Record<MemoryTarget, string>> = { memory: 'MEMORY.md', user: 'USER.md' };

/** Split file text into trimmed, non-empty entries (no de-duplication). */
export function parseEntries(raw: string): string[] {
  if (raw.trim() === '') return [];
  return raw
    .split(ENTRY_DELIMITER)
    .map((e) => e.trim())
    .filter((e) => e !== '');
}

export function joinEntries(entries: readonly string[]): string {
  return entries.join(ENTRY_DELIMITER);
}

/** Keep the first occurrence of each entry. */
export function dedupeEntries(entries: readonly string[]): string[] {
  return [...new Set(entries)];
}

/** Usage counts the joined text, delimiters included. */
export function charCount(entries: readonly string[]): number {
  return joinEntries(entries).length;
}

export function usagePercent(current: number, limit: number): number {
  if (limit <= 0) return 0;
  return Math.min(100, Math.floor((current / limit) * 100));
}

const numberFormat = new Intl.NumberFormat('en-US');
export function formatCount(n: number): string {
  return numberFormat.format(n);
}

/** "67% — 1,474/2,200 chars" */
export function formatUsage(current: number, limit: number): string {
  return `${usagePercent(current, limit)}% — ${formatCount(current)}/${formatCount(limit)} chars`;
}

export const SNAPSHOT_RULE = '═'.repeat(46);

const HEADERS: Readonly<Record<MemoryTarget, string>> = {
  memory: 'MEMORY (your personal notes)',
  user: 'USER PROFILE (who the user is)',
};

/**
 * The system-prompt block for one target: rule, header with usage, rule, entries. `current` is the
 * raw joined length (what the budget counts); `entries` may be the sanitised view.
 */
export function renderSnapshotBlock(
  target: MemoryTarget,
  entries: readonly string[],
  current: number,
  limit: number,
): string {
  const over = current > limit ? ' ⚠ OVER BUDGET' : '';
  const header = `${HEADERS[target]} [${formatUsage(current, limit)}${over}]`;
  let content = joinEntries(entries);
  const cap = Math.max(2 * limit, 4000);
  if (content.length > cap) {
    const head = Math.floor(cap * 0.7);
    const tail = Math.floor(cap * 0.2);
    const cut = content.length - head - tail;
    content =
      content.slice(0, head) +
      `\n[... ${formatCount(cut)} chars truncated — memory over budget (${formatCount(current)}/${formatCount(limit)}); consolidate via memory(action=remove/replace) ...]\n` +
      content.slice(content.length - tail);
  }
  return `${SNAPSHOT_RULE}\n${header}\n${SNAPSHOT_RULE}\n${content}`;
}

/** Preview of a matched entry in an ambiguity error: first 80 chars + "...". */
export function previewEntry(entry: string): string {
  return entry.length > 80 ? `${entry.slice(0, 80)}...` : entry;
}
