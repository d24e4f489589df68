/**
 * Bank ids. A bank is an isolated store the service creates on first use; `bank_id_template`
 * derives one per profile, workspace, platform, user or session. Each placeholder value is
 * sanitised for URL paths (runs of other characters → one `-`, ends trimmed), then the rendered id
 * is collapsed (`--` → `-`, `__` → `_`) and trimmed; an empty result or a template naming an
 * unknown placeholder falls back to the static bank.
 */
export interface BankPlaceholders {
  profile?: string;
  workspace?: string;
  platform?: string;
  user?: string;
  session?: string;
}

const PLACEHOLDERS = new Set(['profile', 'workspace', 'platform', 'user', 'session']);

/** One placeholder value, safe for a URL path segment. */
export function sanitizeBankSegment(value: string | undefined): string {
  if (!value) return '';
  return value.replace(/[^\p{L}\p{N}_-]+/gu, '-').replace(/^[-_]+|[-_]+$/g, '');
}

export interface ResolvedBank {
  bankId: string;
  /** Set when the template was unusable (the static bank was used instead). */
  warning?: string;
}

export function resolveBankId(template: string, fallback: string, values: BankPlaceholders): ResolvedBank {
  if (template.trim() === '') return { bankId: fallback };
  let unknown: string | undefined;
  const rendered = template.replace(/\{([^{}]*)\}/g, (_match, name: string) => {
    if (!PLACEHOLDERS.has(name)) {
      unknown ??= name;
      return '';
    }
    return sanitizeBankSegment(values[name as keyof BankPlaceholders]);
  });
  if (unknown !== undefined || /[{}]/.test(rendered)) {
    return {
      bankId: fallback,
      warning: `Invalid bank_id_template '${template}': unknown placeholder '{${unknown ?? ''}}'; using bank '${fallback}'.`,
    };
  }
  const collapsed = rendered
    .replace(/-{2,}/g, '-')
    .replace(/_{2,}/g, '_')
    .replace(/^[-_]+|[-_]+$/g, '');
  return { bankId: collapsed === '' ? fallback : collapsed };
}
