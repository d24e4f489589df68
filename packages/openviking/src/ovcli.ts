import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Env, readJsonConfig } from '@hermes-memory/core';

/** One OpenViking CLI profile (`ovcli.conf`), the fields the provider reads. */
export interface OvcliProfile {
  /** The file it came from. */
  path: string;
  url?: string;
  apiKey?: string;
  rootApiKey?: string;
  account?: string;
  user?: string;
  agent?: string;
}

/** The active profile `~/.openviking/ovcli.conf` (HOME from the provider's env, then the OS). */
export function defaultOvcliPath(env: Env): string {
  return path.join(env.HOME && env.HOME !== '' ? env.HOME : os.homedir(), '.openviking', 'ovcli.conf');
}

/**
 * Read a profile; null when the file is missing or not a JSON object (the layer is then skipped).
 * A user key (one that is not the root key) drops the profile's account and user: the server
 * derives them from the key, and stale ones would be refused.
 */
export function readOvcliProfile(file: string): OvcliProfile | null {
  const read = readJsonConfig(file);
  if (read.status !== 'ok') return null;
  const data = read.data;
  const text = (...keys: string[]): string | undefined => {
    for (const key of keys) {
      const value = data[key];
      if (typeof value === 'string' && value.trim() !== '') return value.trim();
    }
    return undefined;
  };
  const apiKey = text('api_key');
  const rootApiKey = text('root_api_key');
  const userKey = apiKey !== undefined && apiKey !== rootApiKey;
  const profile: OvcliProfile = { path: file };
  const url = text('url', 'endpoint');
  if (url) profile.url = url;
  const key = apiKey ?? rootApiKey;
  if (key) profile.apiKey = key;
  if (rootApiKey) profile.rootApiKey = rootApiKey;
  const account = text('account', 'account_id');
  const user = text('user', 'user_id');
  if (!userKey && account) profile.account = account;
  if (!userKey && user) profile.user = user;
  const agent = text('actor_peer_id', 'agent_id');
  if (agent) profile.agent = agent;
  return profile;
}

/**
 * Saved profiles next to the active one: `ovcli.conf` (active) and `ovcli.conf.<name>` (names of
 * ASCII letters, digits, `-` and `_`; `.bak` copies ignored), the env-pointed file first.
 */
export function listOvcliProfiles(env: Env): Array<{ name: string; path: string; active: boolean }> {
  const out: Array<{ name: string; path: string; active: boolean }> = [];
  const pointed = env.OPENVIKING_CLI_CONFIG_FILE;
  if (pointed && fs.existsSync(pointed)) out.push({ name: 'env', path: pointed, active: false });
  const active = defaultOvcliPath(env);
  const dir = path.dirname(active);
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir).sort();
  } catch {
    return out;
  }
  for (const name of names) {
    if (name === 'ovcli.conf') out.push({ name: 'active', path: active, active: true });
    const saved = /^ovcli\.conf\.([A-Za-z0-9_-]+)$/.exec(name)?.[1];
    if (saved && saved !== 'bak' && readOvcliProfile(path.join(dir, name)))
      out.push({ name: saved, path: path.join(dir, name), active: false });
  }
  return out;
}
