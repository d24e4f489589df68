/**
 * honcho.json as the commands edit it, the way the reference's `hermes honcho` does: read from the
 * file the agent reads (`$HERMES_HOME/honcho.json`, the default profile's, `~/.honcho/config.json`),
 * change one host block (or a root key), and write the whole object to `$HERMES_HOME/honcho.json`
 * atomically at 0600 — every other host block and key kept as it was.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { type ProviderCliContext, readJsonConfig, writeJsonConfig } from '@hermes-memory/core';
import { configCandidates, loadHonchoConfig } from '../config/load';
import type { HonchoConfig } from '../config/types';
import { isObject, type JsonObject } from '../config/values';

export interface HonchoFile {
  /** Where the settings were read from (undefined: no file yet). */
  readPath: string | undefined;
  /** Where they are written: always this profile's `$HERMES_HOME/honcho.json`. */
  writePath: string;
  /** The host key of this profile (`hermes`, `hermes_<profile>`, `HERMES_HONCHO_HOST`). */
  host: string;
  /** The whole file, edited in place. */
  data: JsonObject;
}

/** The resolved settings, as the agent would load them from this home and environment. */
export function loadConfig(ctx: ProviderCliContext): HonchoConfig {
  return loadHonchoConfig({ hermesHome: ctx.home, env: ctx.env });
}

/** Open the file for editing; a corrupt file is refused rather than overwritten. */
export function openHonchoFile(ctx: ProviderCliContext): HonchoFile {
  const writePath = path.join(ctx.home, 'honcho.json');
  const readPath = configCandidates({ hermesHome: ctx.home, env: ctx.env }).find((file) => existsSync(file));
  let data: JsonObject = {};
  if (readPath) {
    const read = readJsonConfig(readPath);
    if (read.status === 'invalid')
      throw ctx.fail(`Refusing to edit ${readPath}: ${read.error}.`, 'Fix or remove the file first.');
    data = read.data;
  }
  // The host the agent resolves for this home (profile, HERMES_HONCHO_HOST, defaultHost).
  const host = loadConfig(ctx).host;
  return { readPath, writePath, host, data };
}

/** This profile's host block, created when missing. */
export function hostBlockOf(file: HonchoFile): JsonObject {
  const hosts = isObject(file.data.hosts) ? file.data.hosts : {};
  file.data.hosts = hosts;
  const block = isObject(hosts[file.host]) ? (hosts[file.host] as JsonObject) : {};
  hosts[file.host] = block;
  return block;
}

export function saveHonchoFile(file: HonchoFile): void {
  writeJsonConfig(file.writePath, file.data);
}
