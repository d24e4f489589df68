/** What the setup wizard asks for, and how its answers land in (and are read back from) honcho.json. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  type ConfigField,
  type Env,
  readJsonConfig,
  SettingsError,
  writeJsonConfig,
} from '@hermes-memory/core';
import { configCandidates } from './load';
import { isObject, type JsonObject } from './values';

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

export interface HonchoFileLocation {
  hermesHome: string;
  env: Env;
  userHome?: string;
}

/**
 * The file the agent reads for this home (the first candidate that exists) and its object; a
 * corrupt file is refused rather than read as empty, so nothing is written over it.
 */
function readAgentFile(where: HonchoFileLocation): { file: string | undefined; data: JsonObject } {
  const file = configCandidates(where).find((candidate) => existsSync(candidate));
  if (!file) return { file, data: {} };
  const read = readJsonConfig(file);
  if (read.status === 'invalid')
    throw new SettingsError(file, `Refusing to use ${file}: ${read.error}. Fix or remove it first.`);
  return { file, data: read.data as JsonObject };
}

/**
 * Merge the answers into honcho.json's root (atomic, 0600), as the reference's setup does. The
 * file written is `$HERMES_HOME/honcho.json`; when it does not exist yet it starts from the file
 * the agent reads now (`~/.honcho/config.json`, the default profile's), so the new file does not
 * hide the settings and host blocks that file held.
 */
export function saveHonchoConfig(values: Readonly<Record<string, unknown>>, where: HonchoFileLocation): void {
  const patch: Record<string, unknown> = {};
  const key = values.api_key ?? values.apiKey;
  if (typeof key === 'string' && key.trim()) patch.apiKey = key.trim();
  const url = values.baseUrl ?? values.base_url;
  if (typeof url === 'string' && url.trim()) patch.baseUrl = url.trim();
  if (Object.keys(patch).length === 0) return;
  const { data } = readAgentFile(where);
  writeJsonConfig(path.join(where.hermesHome, 'honcho.json'), { ...data, ...patch });
}

/**
 * What `saveHonchoConfig` saved, read back in the wizard's terms (non-secret keys only): the root
 * `baseUrl` of the file the agent reads (or its `base_url` / `endpoint.baseUrl` spellings).
 */
export function savedHonchoConfig(where: HonchoFileLocation): Record<string, unknown> {
  const { data } = readAgentFile(where);
  const endpoint = isObject(data.endpoint) ? data.endpoint : {};
  const url = [data.baseUrl, data.base_url, endpoint.baseUrl].find(
    (value): value is string => typeof value === 'string' && value.trim() !== '',
  );
  return url ? { baseUrl: url.trim() } : {};
}
