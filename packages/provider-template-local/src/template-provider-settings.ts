import { SettingsError } from '@hermes-memory/core';

/** Options of `createTemplateProvider`. Every field is optional; the defaults work out of the box. */
export interface TemplateProviderSettings {
  /** File name inside HERMES_HOME. Default `template-memory.jsonl`. Env: `TEMPLATE_FILE`. */
  fileName?: string;
  /** Results per search and per prefetch. Default 5. Env: `TEMPLATE_MAX_RESULTS`. */
  maxResults?: number;
  /** Longest entry accepted from a tool call or a synced turn, in characters. Default 4000. */
  maxEntryChars?: number;
  /** Set false to switch the provider off (isAvailable() returns false). Default true. */
  enabled?: boolean;
}

export interface ResolvedTemplateSettings {
  fileName: string;
  maxResults: number;
  maxEntryChars: number;
  enabled: boolean;
}

export const TEMPLATE_DEFAULTS: ResolvedTemplateSettings = {
  fileName: 'template-memory.jsonl',
  maxResults: 5,
  maxEntryChars: 4000,
  enabled: true,
};

/**
 * Merge, in increasing priority: defaults, `memory.template` in config.yaml (providerConfig), the
 * environment, explicit constructor settings. Invalid values are a SettingsError naming the source.
 */
export function resolveTemplateSettings(
  settings: TemplateProviderSettings,
  providerConfig: Readonly<Record<string, unknown>> = {},
  env: Readonly<Record<string, string | undefined>> = {},
): ResolvedTemplateSettings {
  const fileName =
    settings.fileName ??
    env.TEMPLATE_FILE ??
    stringValue(providerConfig.file_name) ??
    TEMPLATE_DEFAULTS.fileName;
  if (fileName === '' || fileName.includes('/') || fileName.includes('\\') || fileName.startsWith('.')) {
    throw new SettingsError(
      'fileName',
      `Template memory file name '${fileName}' must be a plain file name inside HERMES_HOME.`,
    );
  }
  const maxResults = positiveInteger(
    'maxResults',
    settings.maxResults ??
      env.TEMPLATE_MAX_RESULTS ??
      providerConfig.max_results ??
      TEMPLATE_DEFAULTS.maxResults,
    50,
  );
  const maxEntryChars = positiveInteger(
    'maxEntryChars',
    settings.maxEntryChars ?? providerConfig.max_entry_chars ?? TEMPLATE_DEFAULTS.maxEntryChars,
    1_000_000,
  );
  return { fileName, maxResults, maxEntryChars, enabled: settings.enabled ?? TEMPLATE_DEFAULTS.enabled };
}

function stringValue(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function positiveInteger(name: string, value: unknown, max: number): number {
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > max) {
    throw new SettingsError(
      name,
      `Template memory setting '${name}' must be an integer from 1 to ${max}, got ${String(value)}.`,
    );
  }
  return n;
}
