/**
 * The grant in honcho.json: read from a host block, written back into it atomically at 0600 with
 * every other host block and key kept. A file that cannot be parsed is refused, never overwritten.
 */
import { readJsonConfig, SettingsError, writeJsonConfig } from '@hermes-memory/core';
import { isObject, type JsonObject } from '../config/values';
import { credentialFromBlock, type OAuthCredential, oauthBlock } from './credential';

function readFile(file: string): JsonObject {
  const read = readJsonConfig(file);
  if (read.status === 'invalid')
    throw new SettingsError(file, `Refusing to write ${file}: ${read.error}. Fix or remove it first.`);
  return read.data as JsonObject;
}

function hostBlockIn(data: JsonObject, host: string): JsonObject {
  const hosts = isObject(data.hosts) ? data.hosts : {};
  data.hosts = hosts;
  const block = isObject(hosts[host]) ? hosts[host] : {};
  hosts[host] = block;
  return block;
}

/** The grant `host` holds in `file` now (undefined: none, or the file is missing or unreadable). */
export function readStoredCredential(file: string, host: string): OAuthCredential | undefined {
  const read = readJsonConfig(file);
  if (read.status !== 'ok') return undefined;
  const hosts = isObject(read.data.hosts) ? read.data.hosts : {};
  const block = hosts[host];
  return isObject(block) ? credentialFromBlock(block) : undefined;
}

/** Merge `overlay` into `base` (objects recursively, everything else replaced). */
function deepMerge(base: JsonObject, overlay: JsonObject): void {
  for (const [key, value] of Object.entries(overlay)) {
    const current = base[key];
    if (isObject(value) && isObject(current)) deepMerge(current, value);
    else base[key] = value;
  }
}

/**
 * Write `credential` into `host`'s block (`apiKey` + `oauth`). `config`, the settings a grant may
 * carry, is deep-merged into the file first when given (the "Connect" flow); the CLI stores tokens only.
 */
export function storeCredential(
  file: string,
  host: string,
  credential: OAuthCredential,
  options: { config?: JsonObject; peerName?: string } = {},
): void {
  const data = readFile(file);
  if (options.config) deepMerge(data, options.config);
  const block = hostBlockIn(data, host);
  block.apiKey = credential.accessToken;
  block.oauth = oauthBlock(credential);
  if (options.peerName && !block.peerName && !data.peerName) block.peerName = options.peerName;
  writeJsonConfig(file, data);
}

/** Remove `host`'s grant (its `apiKey` and `oauth`); true when there was one. */
export function removeCredential(file: string, host: string): boolean {
  const data = readFile(file);
  const hosts = isObject(data.hosts) ? data.hosts : {};
  const block = hosts[host];
  if (!isObject(block) || !credentialFromBlock(block)) return false;
  delete block.apiKey;
  delete block.oauth;
  writeJsonConfig(file, data);
  return true;
}
