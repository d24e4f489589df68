/** What the setup wizard asks for, and how its answers land in `$HERMES_HOME/honcho.json`. */
import path from 'node:path';
import { type ConfigField, mergeJsonConfig } from '@hermes-memory/core';

export const HONCHO_CONFIG_SCHEMA: readonly ConfigField[] = [
  {
    key: 'api_key',
    description: 'Honcho API key (from app.honcho.dev); leave empty for a self-hosted server',
    secret: true,
    envVar: 'HONCHO_API_KEY',
    url: 'https://app.honcho.dev',
  },
  {
    key: 'baseUrl',
    description: 'Base URL of a self-hosted Honcho (e.g. http://localhost:8000)',
    type: 'text',
  },
];

/** Merge the answers into honcho.json's root (atomic, 0600), as the reference's setup does. */
export function saveHonchoConfig(values: Readonly<Record<string, unknown>>, hermesHome: string): void {
  const patch: Record<string, unknown> = {};
  const key = values.api_key ?? values.apiKey;
  if (typeof key === 'string' && key.trim()) patch.apiKey = key.trim();
  const url = values.baseUrl ?? values.base_url;
  if (typeof url === 'string' && url.trim()) patch.baseUrl = url.trim();
  if (Object.keys(patch).length > 0) mergeJsonConfig(path.join(hermesHome, 'honcho.json'), patch);
}
