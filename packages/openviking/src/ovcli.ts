import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Env, readJsonConfig, writeJsonConfig } from '@hermes-memory/core';
import { checkEndpoint } from './endpoint';
import type { ConnectionValues } from './setup-config';

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
  return read.status === 'ok' ? profileFrom(file, read.data) : null;
}

function profileFrom(file: string, data: Record<string, unknown>): OvcliProfile {
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

/** A saved profile's name: ASCII letters, digits, `-` and `_` (it becomes `ovcli.conf.<name>`). */
export function isValidProfileName(name: string): boolean {
  return /^[A-Za-z0-9_-]+$/.test(name);
}

export interface DiscoveredOvcliProfile {
  /** How the picker names it: `OPENVIKING_CLI_CONFIG_FILE`, `ovcli.conf`, or the saved name. */
  name: string;
  source: 'env' | 'saved' | 'active';
  path: string;
  /** The saved profile `ovcli.conf` (the OpenViking CLI's active one) holds the same connection as. */
  active: boolean;
  profile: OvcliProfile;
}

/**
 * The profiles setup offers, in the reference's order: the file `OPENVIKING_CLI_CONFIG_FILE`
 * names, then the saved `ovcli.conf.<name>` files (sorted; `.bak` copies and invalid names
 * skipped). The active `ovcli.conf` marks the saved profile with the same connection, and is
 * listed itself only when nothing else was found. A file that is not a JSON object is skipped
 * (reported through `onInvalid`) and never touched. Each file is listed once.
 */
export function discoverOvcliProfiles(
  env: Env,
  onInvalid: (file: string, reason: string) => void = () => {},
): DiscoveredOvcliProfile[] {
  const found: DiscoveredOvcliProfile[] = [];
  const seen = new Set<string>();
  const load = (file: string): OvcliProfile | null => {
    const read = readJsonConfig(file);
    if (read.status === 'ok') return profileFrom(file, read.data);
    if (read.status === 'invalid') onInvalid(file, read.error);
    return null;
  };
  const add = (file: string, source: DiscoveredOvcliProfile['source'], name: string) => {
    const identity = realPath(file);
    if (seen.has(identity) || !isFile(file)) return;
    const profile = load(file);
    if (!profile) return;
    seen.add(identity);
    found.push({ name, source, path: file, active: false, profile });
  };
  const pointed = env.OPENVIKING_CLI_CONFIG_FILE?.trim();
  if (pointed) add(pointed, 'env', 'OPENVIKING_CLI_CONFIG_FILE');
  const activePath = defaultOvcliPath(env);
  const active = isFile(activePath) ? load(activePath) : null;
  const dir = path.dirname(activePath);
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir).sort();
  } catch {}
  const savedFrom = found.length;
  for (const entry of names) {
    const name = entry.startsWith(SAVED_PREFIX) ? entry.slice(SAVED_PREFIX.length) : '';
    if (name !== '' && name !== 'bak' && isValidProfileName(name)) add(path.join(dir, entry), 'saved', name);
  }
  if (active) {
    const twin = found.slice(savedFrom).find((p) => sameConnection(p.profile, active));
    if (twin) twin.active = true;
    else if (found.length === 0 && !seen.has(realPath(activePath)))
      found.push({ name: 'ovcli.conf', source: 'active', path: activePath, active: true, profile: active });
  }
  return found;
}

const SAVED_PREFIX = 'ovcli.conf.';

/** The saved profile path for `name`, next to the active one. */
export function savedOvcliPath(env: Env, name: string): string {
  return path.join(path.dirname(defaultOvcliPath(env)), `${SAVED_PREFIX}${name}`);
}

/** The JSON an OpenViking CLI profile holds for a connection (empty values left out). */
export function ovcliData(values: ConnectionValues): Record<string, string> {
  const data: Record<string, string> = { url: values.endpoint };
  const fields: Array<[string, string]> = [
    ['api_key', values.apiKey],
    ['root_api_key', values.rootApiKey],
    ['account', values.account],
    ['user', values.user],
    ['actor_peer_id', values.agent],
  ];
  for (const [key, value] of fields) if (value.trim() !== '') data[key] = value.trim();
  return data;
}

/** Write a profile the OpenViking CLI can use: atomically, mode 0600 (it holds the key). */
export function writeOvcliProfile(file: string, data: Record<string, string>): void {
  writeJsonConfig(file, data);
}

function sameConnection(a: OvcliProfile, b: OvcliProfile): boolean {
  const url = (p: OvcliProfile) => {
    const checked = p.url ? checkEndpoint(p.url) : null;
    return checked?.ok ? checked.endpoint : (p.url ?? '');
  };
  return (
    url(a) === url(b) &&
    a.apiKey === b.apiKey &&
    a.rootApiKey === b.rootApiKey &&
    a.account === b.account &&
    a.user === b.user &&
    a.agent === b.agent
  );
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function realPath(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}
