/**
 * Joining recall from several providers (tiered memory, decision 0130): each section labelled
 * with the provider it came from, a line already recalled by an earlier provider folded away,
 * and one character budget for the whole turn, spent in provider order (builtin, canonical, then
 * secondaries as registered).
 */

export interface RecallSection {
  /** Provider id. */
  provider: string;
  /** What the provider returned for this turn. */
  text: string;
}

export interface ComposeOptions {
  /** Total characters of recall across every section, labels included. */
  budgetChars: number;
}

/** Below this many characters left, a section is dropped rather than cut to a stub. */
const MIN_SECTION_CHARS = 80;

/** The header a section carries, so the model can tell which memory said what. */
export function sectionLabel(provider: string): string {
  return `## Recall from ${provider}`;
}

/**
 * Lines compared for folding: case, spacing, list markers and trailing punctuation do not make
 * two recalls of the same fact different. Lines too short to be a fact are never folded.
 */
function foldKey(line: string): string | undefined {
  const key = line
    .toLowerCase()
    .replace(/^\s*(?:[-*•]|\d+[.)])\s+/, '')
    .replace(/[\s\p{P}]+/gu, ' ')
    .trim();
  return key.length >= 12 ? key : undefined;
}

/** Cut `text` to at most `limit` characters at a line end; "" when no whole line fits. */
function cutAtLine(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const end = text.lastIndexOf('\n', limit);
  return end <= 0 ? '' : text.slice(0, end).trimEnd();
}

/**
 * The sections as one recall text: empty sections skipped, every line whose fold key an earlier
 * section (or an earlier line) already had removed, each section under its label, the whole
 * within `budgetChars`.
 */
export function composeRecall(sections: readonly RecallSection[], options: ComposeOptions): string {
  const seen = new Set<string>();
  const out: string[] = [];
  let left = options.budgetChars;
  for (const { provider, text } of sections) {
    const own = new Set<string>();
    const kept = text.split('\n').filter((line) => {
      const key = foldKey(line);
      if (key === undefined) return true;
      if (seen.has(key) || own.has(key)) return false;
      own.add(key);
      return true;
    });
    const body = kept.join('\n').trim();
    if (body === '') continue;
    const label = sectionLabel(provider);
    const separator = out.length > 0 ? 2 : 0;
    const room = left - separator - label.length - 1;
    if (room < MIN_SECTION_CHARS && room < body.length) continue;
    const fitted = cutAtLine(body, room);
    if (fitted === '') continue;
    // Only what was injected counts as recalled: a line cut by the budget may come from a later provider.
    for (const line of fitted.split('\n')) {
      const key = foldKey(line);
      if (key !== undefined) seen.add(key);
    }
    const section = `${label}\n${fitted}`;
    out.push(section);
    left -= separator + section.length;
  }
  return out.join('\n\n');
}
