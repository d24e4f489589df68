import { stripIgnorables } from '../text/fold';
import { foldConfusables } from './confusables';
import { decodedReadings, reversed, rot13, withoutMarkup } from './decode';
import { findInvisibleCodePoint, formatCodePoint } from './invisible';
import { type ScanScope, THREAT_RULES, type ThreatRule } from './patterns';
import { SQUASHED_RULES, squash } from './squashed';
import { textVariants } from './variants';

/** Text beyond this many characters is not scanned: longer writes are refused as `too_large`. */
export const MAX_SCAN_CHARS = 65_536;

export type ScanResult =
  | { ok: true }
  | {
      ok: false;
      kind: 'invisible_unicode' | 'threat_pattern' | 'too_large';
      patternId: string;
      message: string;
    };

export interface ScanOptions {
  /** Which rules run: `all` ⊂ `context` ⊂ `strict`. Default `strict` (memory writes). */
  scope?: ScanScope;
}

const SCOPE_RANK: Record<ScanScope, number> = { all: 0, context: 1, strict: 2 };

const RULES_BY_SCOPE: Record<ScanScope, readonly ThreatRule[]> = {
  all: THREAT_RULES.filter((r) => SCOPE_RANK[r.scope] <= 0),
  context: THREAT_RULES.filter((r) => SCOPE_RANK[r.scope] <= 1),
  strict: THREAT_RULES,
};

export function threatMessage(patternId: string): string {
  return (
    `Blocked: content matches threat pattern '${patternId}'. ` +
    'Content is injected into the system prompt and must not contain injection or exfiltration payloads.'
  );
}

export function invisibleMessage(codePoint: string): string {
  return `Blocked: content contains invisible unicode character ${codePoint} (possible injection).`;
}

interface Readings {
  /** Readings every rule runs on. */
  views: string[];
  /** Letters-only readings (the text, ROT13, backwards), for the squashed phrases. */
  squashed: string[];
}

/**
 * Every way a reader could take the text, most literal first: the text itself with characters
 * that render as nothing removed (soft hyphen, LRM, CGJ, variation selectors, tags …) and NFKC
 * applied; look-alikes folded, spaced letters joined, leet undone; markup out of the way
 * (comments and tags dropped); obvious encodings decoded (base64, hex, percent, entities). ROT13
 * and the text backwards are only read for the squashed phrases: an attacker who scrambles text
 * that way is hiding an instruction to the model, and the squashed phrases are those instructions.
 */
function readings(text: string): Readings {
  const base = stripIgnorables(text).normalize('NFKC');
  const seen = new Set<string>([base]);
  const views = [base];
  const add = (view: string) => {
    if (view && !seen.has(view)) {
      seen.add(view);
      views.push(view);
    }
  };
  for (const v of textVariants(base)) add(v);
  const plain = withoutMarkup(base);
  if (plain !== base) for (const v of [plain, ...textVariants(plain)]) add(v);
  for (const decoded of decodedReadings(base)) {
    const clean = stripIgnorables(decoded).normalize('NFKC');
    for (const v of [clean, ...textVariants(clean)]) add(v);
  }
  const letters = squash(foldConfusables(plain));
  return { views, squashed: [letters, rot13(letters), reversed(letters)] };
}

function matchesAny(r: ThreatRule, views: readonly string[]): boolean {
  for (const v of views) if (r.test(v)) return true;
  return false;
}

/** Rule ids that match any reading, in rule order (the squashed phrases last). */
function findings(text: string, rules: readonly ThreatRule[], scope: ScanScope, first: boolean): string[] {
  const { views, squashed } = readings(text);
  const found: string[] = [];
  for (const r of rules) {
    if (matchesAny(r, views)) {
      found.push(r.id);
      if (first) return found;
    }
  }
  for (const r of SQUASHED_RULES) {
    if (SCOPE_RANK[r.scope] > SCOPE_RANK[scope] || found.includes(r.id)) continue;
    if (squashed.some((v) => r.test(v))) {
      found.push(r.id);
      if (first) return found;
    }
  }
  return found;
}

/**
 * Check text before it is persisted into (or injected as) prompt context. Blocks on the first
 * finding: invisible characters are checked on the raw text (NFKC would erase some of them), the
 * rules on the NFKC-normalised text so full-width look-alikes cannot dodge them.
 */
export function scanWrite(content: string, options: ScanOptions = {}): ScanResult {
  const scope = options.scope ?? 'strict';
  const rules = RULES_BY_SCOPE[scope];
  if (!rules) throw new RangeError(`Unknown scan scope '${String(scope)}'.`);
  if (!content) return { ok: true };
  if (content.length > MAX_SCAN_CHARS) {
    return {
      ok: false,
      kind: 'too_large',
      patternId: 'too_large',
      message: `Blocked: content is ${content.length.toLocaleString('en-US')} characters; the scanner accepts at most ${MAX_SCAN_CHARS.toLocaleString('en-US')}.`,
    };
  }
  const invisible = findInvisibleCodePoint(content);
  if (invisible !== undefined) {
    const label = formatCodePoint(invisible);
    return {
      ok: false,
      kind: 'invisible_unicode',
      patternId: 'invisible_unicode',
      message: invisibleMessage(label),
    };
  }
  const [id] = findings(content, rules, scope, true);
  if (id !== undefined)
    return { ok: false, kind: 'threat_pattern', patternId: id, message: threatMessage(id) };
  return { ok: true };
}

/** Every rule id that matches (for diagnostics and the benchmark), in rule order. */
export function scanAll(content: string, options: ScanOptions = {}): string[] {
  const rules = RULES_BY_SCOPE[options.scope ?? 'strict'];
  if (!rules) throw new RangeError(`Unknown scan scope '${String(options.scope)}'.`);
  const window = content.slice(0, MAX_SCAN_CHARS);
  const found: string[] = [];
  const invisible = findInvisibleCodePoint(window);
  if (invisible !== undefined) found.push(`invisible_unicode_${formatCodePoint(invisible)}`);
  found.push(...findings(window, rules, options.scope ?? 'strict', false));
  return found;
}

/**
 * Judge `entry` together with what it joins — the other entries of a memory file, the facts
 * stored just before it — so a payload split across several writes is caught: blocked when the
 * entry is blocked on its own, or when the joined text matches a rule the others did not already
 * match without it.
 */
export function scanWriteInContext(
  entry: string,
  context: readonly string[],
  options: ScanOptions = {},
): ScanResult {
  const alone = scanWrite(entry, options);
  if (!alone.ok || context.length === 0) return alone;
  const others = context.join('\n');
  const joined = `${others}\n${entry}`;
  const window = joined.length > MAX_SCAN_CHARS ? joined.slice(joined.length - MAX_SCAN_CHARS) : joined;
  const before = new Set(scanAll(others.slice(Math.max(0, others.length - MAX_SCAN_CHARS)), options));
  for (const id of scanAll(window, options)) {
    if (before.has(id) || id.startsWith('invisible_unicode')) continue;
    return {
      ok: false,
      kind: 'threat_pattern',
      patternId: id,
      message:
        `Blocked: together with the entries it joins, content matches threat pattern '${id}'. ` +
        'Content is injected into the system prompt and must not contain injection or exfiltration payloads.',
    };
  }
  return { ok: true };
}
