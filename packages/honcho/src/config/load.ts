/**
 * Finding and reading honcho.json the way the Python agent does: `$HERMES_HOME/honcho.json`, then
 * the default profile's `~/.hermes/honcho.json`, then `~/.honcho/config.json`; the first that
 * exists wins (BOM tolerated). Without one, the environment alone configures the provider.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Env, readJsonConfig } from '@hermes-memory/core';
import { hostBlock, profileOfHome, resolveActiveHost } from './hosts';
import { resolveHonchoConfig } from './resolve';
import type { HonchoConfig } from './types';
import { isObject, type JsonObject } from './values';

export interface LoadConfigOptions {
  hermesHome: string;
  env: Env;
  /** The user's home (default `HOME` from `env`, else the OS's). */
  userHome?: string;
  /** The active profile; default: derived from `hermesHome` (`…/profiles/<name>`). */
  profile?: string;
  /**
   * honcho.json keys given in code (`createHonchoProvider({ config })`): laid over the host block,
   * so they beat every other source.
   */
  overrides?: JsonObject;
}

function withOverrides(
  raw: JsonObject | undefined,
  host: string,
  overrides: JsonObject | undefined,
): JsonObject | undefined {
  if (!overrides || Object.keys(overrides).length === 0) return raw;
  const base = raw ?? {};
  const hosts = isObject(base.hosts) ? base.hosts : {};
  return { ...base, hosts: { ...hosts, [host]: { ...hostBlock(base, host), ...overrides } } };
}

/** The candidate files, in the order they are tried. */
export function configCandidates(options: LoadConfigOptions): string[] {
  const home = options.userHome ?? (options.env.HOME?.trim() || os.homedir());
  const { defaultHome } = profileOfHome(options.hermesHome);
  const candidates = [
    path.join(options.hermesHome, 'honcho.json'),
    path.join(defaultHome, 'honcho.json'),
    path.join(home, '.hermes', 'honcho.json'),
    path.join(home, '.honcho', 'config.json'),
  ];
  return [...new Set(candidates.map((p) => path.resolve(p)))];
}

/** The resolved config; a file that cannot be parsed is reported in `warnings` and skipped. */
export function loadHonchoConfig(options: LoadConfigOptions): HonchoConfig {
  const profile = options.profile ?? profileOfHome(options.hermesHome).profile;
  const problems: string[] = [];
  for (const file of configCandidates(options)) {
    if (!existsSync(file)) continue;
    const read = readJsonConfig(file);
    if (read.status !== 'ok') {
      if (read.status === 'invalid') problems.push(`${read.error}; it is ignored.`);
      continue;
    }
    const host = resolveActiveHost({ env: options.env, profile, raw: read.data });
    const raw = withOverrides(read.data, host, options.overrides);
    const config = resolveHonchoConfig({ raw, host, env: options.env, configPath: file });
    return { ...config, warnings: [...problems, ...config.warnings] };
  }
  const host = resolveActiveHost({ env: options.env, profile });
  const config = resolveHonchoConfig({
    raw: withOverrides(undefined, host, options.overrides),
    host,
    env: options.env,
  });
  return { ...config, warnings: [...problems, ...config.warnings] };
}
