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

/**
 * Python's `str.isspace()` set, which `str.strip()` removes: JavaScript's `trim()` also strips
 * U+FEFF but keeps U+001C–U+001F and U+0085, so entries would split and compare differently.
 */
const PY_WHITESPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002,
  0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

/** `text.strip()` as the Python agent computes it (linear, no regex backtracking). */
export function pyStrip(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && PY_WHITESPACE.has(text.charCodeAt(start))) start++;
  while (end > start && PY_WHITESPACE.has(text.charCodeAt(end - 1))) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** Length in code points, as Python's `len()` counts: an emoji is one character, not two. */
export function codePointLength(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** `text[start:end]` counted in code points, as Python slices; never splits a surrogate pair. */
export function sliceCodePoints(text: string, start: number, end?: number): string {
  if (codePointLength(text) === text.length) return text.slice(start, end);
  return Array.from(text).slice(start, end).join('');
}

/**
 * File text as the Python agent reads it (`read_text(encoding="utf-8-sig")`): a leading BOM is
 * dropped (done by the decoder) and universal newlines turn `\r\n` and a lone `\r` into `\n`, so
 * a file edited on Windows still splits on the delimiter and round-trips without drift.
 */
export function normaliseNewlines(raw: string): string {
  return raw.includes('\r') ? raw.replace(/\r\n?/g, '\n') : raw;
}

/** Split file text into stripped, non-empty entries (no de-duplication). */
export function parseEntries(raw: string): string[] {
  if (pyStrip(raw) === '') return [];
  return raw
    .split(ENTRY_DELIMITER)
    .map(pyStrip)
    .filter((e) => e !== '');
}

export function joinEntries(entries: readonly string[]): string {
  return entries.join(ENTRY_DELIMITER);
}

/** Keep the first occurrence of each entry. */
export function dedupeEntries(entries: readonly string[]): string[] {
  return [...new Set(entries)];
}

/** Usage counts the joined text in code points, delimiters included. */
export function charCount(entries: readonly string[]): number {
  return codePointLength(joinEntries(entries));
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
  const length = codePointLength(content);
  if (length > cap) {
    const head = Math.floor(cap * 0.7);
    const tail = Math.floor(cap * 0.2);
    const cut = length - head - tail;
    content =
      sliceCodePoints(content, 0, head) +
      `\n[... ${formatCount(cut)} chars truncated — memory over budget (${formatCount(current)}/${formatCount(limit)}); consolidate via memory(action=remove/replace) ...]\n` +
      sliceCodePoints(content, length - tail);
  }
  return `${SNAPSHOT_RULE}\n${header}\n${SNAPSHOT_RULE}\n${content}`;
}

/** Preview of a matched entry in an ambiguity error: first 80 characters + "...". */
export function previewEntry(entry: string): string {
  return codePointLength(entry) > 80 ? `${sliceCodePoints(entry, 0, 80)}...` : entry;
}
