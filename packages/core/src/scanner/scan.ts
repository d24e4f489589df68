import { findInvisibleCodePoint, formatCodePoint } from './invisible';
import { type ScanScope, THREAT_RULES, type ThreatRule } from './patterns';
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

/** The NFKC text plus its de-obfuscated readings (look-alikes folded, spaced letters joined, leet undone). */
function readings(text: string): string[] {
  const normalised = text.normalize('NFKC');
  return [normalised, ...textVariants(normalised)];
}

function matchesAny(r: ThreatRule, views: readonly string[]): boolean {
  for (const v of views) if (r.pattern.test(v)) return true;
  return false;
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
  const views = readings(content);
  for (const r of rules) {
    if (matchesAny(r, views)) {
      return { ok: false, kind: 'threat_pattern', patternId: r.id, message: threatMessage(r.id) };
    }
  }
  return { ok: true };
}

/** Every rule id that matches (for diagnostics and the benchmark), in rule order. */
export function scanAll(content: string, options: ScanOptions = {}): string[] {
  const rules = RULES_BY_SCOPE[options.scope ?? 'strict'];
  const window = content.slice(0, MAX_SCAN_CHARS);
  const found: string[] = [];
  const invisible = findInvisibleCodePoint(window);
  if (invisible !== undefined) found.push(`invisible_unicode_${formatCodePoint(invisible)}`);
  const views = readings(window);
  for (const r of rules) if (matchesAny(r, views)) found.push(r.id);
  return found;
}
