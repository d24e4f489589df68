/**
 * Host keys: which `hosts.<key>` block of honcho.json belongs to this Hermes profile. The default
 * profile is `hermes`, a named profile `hermes_<name>` (the legacy `hermes.<name>` is still read),
 * `HERMES_HONCHO_HOST` overrides both, and the file's `defaultHost` applies to the default profile
 * only, so named profiles stay isolated.
 */
import path from 'node:path';
import { isObject, type JsonObject } from './values';

export const DEFAULT_HOST = 'hermes';

/** The host key of a profile: `hermes` for the default one, `hermes_<sanitised name>` otherwise. */
export function profileHostKey(profile: string | undefined): string {
  if (!profile || profile === 'default' || profile === 'custom') return DEFAULT_HOST;
  const sanitised = [...profile]
    .map((c) => (/[\p{L}\p{N}_-]/u.test(c) ? c : '_'))
    .join('')
    .replace(/^_+|_+$/g, '');
  return `${DEFAULT_HOST}_${sanitised || 'profile'}`;
}

/**
 * The profile a home belongs to, and the default profile's home: named profiles live in
 * `<root>/profiles/<name>`, everything else is the default profile (its own root).
 */
export function profileOfHome(hermesHome: string): { profile: string; defaultHome: string } {
  const resolved = path.resolve(hermesHome);
  const parent = path.dirname(resolved);
  if (path.basename(parent) === 'profiles' && /^[a-z0-9][a-z0-9_-]{0,63}$/.test(path.basename(resolved))) {
    return { profile: path.basename(resolved), defaultHome: path.dirname(parent) };
  }
  return { profile: 'default', defaultHome: resolved };
}

/** `hosts[host]`, accepting the legacy dot form (`hermes.work`) for profile hosts. */
export function hostBlock(raw: JsonObject, host: string): JsonObject {
  const hosts = isObject(raw.hosts) ? raw.hosts : {};
  const block = hosts[host];
  if (isObject(block) && Object.keys(block).length > 0) return block;
  if (!host.startsWith(`${DEFAULT_HOST}_`)) return isObject(block) ? block : {};
  const legacy = hosts[`${DEFAULT_HOST}.${host.slice(DEFAULT_HOST.length + 1)}`];
  return isObject(legacy) ? legacy : isObject(block) ? block : {};
}

export interface ActiveHostOptions {
  /** The environment (`HERMES_HONCHO_HOST`). */
  env: Readonly<Record<string, string | undefined>>;
  /** The active profile name. */
  profile: string;
  /** The parsed honcho.json, for `defaultHost`. */
  raw?: JsonObject;
}

/** The host key in force: `HERMES_HONCHO_HOST`, else the profile's, with `defaultHost` for the default profile. */
export function resolveActiveHost(options: ActiveHostOptions): string {
  const explicit = (options.env.HERMES_HONCHO_HOST ?? '').trim();
  if (explicit) return explicit;
  const host = profileHostKey(options.profile);
  if (host === DEFAULT_HOST && options.raw) {
    const fallback = options.raw.defaultHost;
    if (typeof fallback === 'string' && fallback.trim()) return fallback.trim();
  }
  return host;
}
