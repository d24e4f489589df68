import fs from 'node:fs';
import path from 'node:path';
import { tempHermesHome } from '@hermes-memory/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { effectiveApiKey, effectiveBaseUrl, LOCAL_API_KEY } from '../src/client/honcho-client';
import { loadHermesConfig, providerConfigPaths, readProviderConfig } from '@hermes-memory/core';
import { createHonchoProvider, loadHonchoConfig, resolveHonchoConfig } from '../src/index';

const homes: Array<{ cleanup(): void }> = [];
afterEach(() => {
  for (const h of homes.splice(0)) h.cleanup();
});

function home(honchoJson?: unknown) {
  const h = tempHermesHome('honcho-config-');
  homes.push(h);
  if (honchoJson !== undefined)
    fs.writeFileSync(path.join(h.path, 'honcho.json'), JSON.stringify(honchoJson));
  return h.path;
}

describe('honcho config', () => {
  it('§2.7.1 isAvailable() is false without a key or base URL, true with either, and makes no network call', () => {
    let fetched = 0;
    const realFetch = globalThis.fetch;
    globalThis.fetch = (async (...args: Parameters<typeof fetch>) => {
      fetched += 1;
      return realFetch(...args);
    }) as typeof fetch;
    try {
      const empty = home();
      expect(createHonchoProvider({ userHome: empty }, { hermesHome: empty, env: {} }).isAvailable()).toBe(
        false,
      );
      expect(
        createHonchoProvider(
          { userHome: empty },
          { hermesHome: empty, env: { HONCHO_API_KEY: 'k' } },
        ).isAvailable(),
      ).toBe(true);
      expect(
        createHonchoProvider(
          { userHome: empty },
          { hermesHome: empty, env: { HONCHO_BASE_URL: 'http://127.0.0.1:9' } },
        ).isAvailable(),
      ).toBe(true);
      const withFile = home({ baseUrl: 'http://localhost:8000' });
      expect(
        createHonchoProvider({ userHome: withFile }, { hermesHome: withFile, env: {} }).isAvailable(),
      ).toBe(true);
      const disabled = home({ apiKey: 'k', enabled: false });
      const off = createHonchoProvider({ userHome: disabled }, { hermesHome: disabled, env: {} });
      expect(off.isAvailable()).toBe(false);
      expect(off.unavailableReason()).toMatch(/disabled/);
      expect(fetched).toBe(0);
    } finally {
      globalThis.fetch = realFetch;
    }
  });

  it('§2.7.2 precedence: host block beats root, root beats the environment, the environment beats the default (writeFrequency)', () => {
    const env = { HONCHO_API_KEY: 'k' };
    const both = resolveHonchoConfig({
      raw: { writeFrequency: 'session', hosts: { hermes: { writeFrequency: 'turn' } } },
      host: 'hermes',
      env,
    });
    expect(both.writeFrequency).toBe('turn');
    const rootOnly = resolveHonchoConfig({
      raw: { writeFrequency: 'session', hosts: { hermes: {} } },
      host: 'hermes',
      env,
    });
    expect(rootOnly.writeFrequency).toBe('session');
    // The environment beats the default for the keys it has: the key and base URL.
    const fromEnv = resolveHonchoConfig({
      raw: { hosts: { hermes: { peerName: 'a' } } },
      host: 'hermes',
      env: { HONCHO_API_KEY: 'env-key' },
    });
    expect(fromEnv.apiKey).toBe('env-key');
    const fileKey = resolveHonchoConfig({
      raw: { apiKey: 'file-key' },
      host: 'hermes',
      env: { HONCHO_API_KEY: 'env-key' },
    });
    expect(fileKey.apiKey).toBe('file-key');
    expect(resolveHonchoConfig({ raw: {}, host: 'hermes', env }).writeFrequency).toBe('async');
    // A profile's host block is read from the file the Python agent writes.
    const h = home({ apiKey: 'root', hosts: { hermes_work: { apiKey: 'work', writeFrequency: 'turn' } } });
    const profileHome = path.join(h, 'profiles', 'work');
    fs.mkdirSync(profileHome, { recursive: true });
    const loaded = loadHonchoConfig({ hermesHome: profileHome, env: {}, userHome: h });
    expect(loaded.host).toBe('hermes_work');
    expect(loaded.apiKey).toBe('work');
    expect(loaded.writeFrequency).toBe('turn');
  });

  it('§2.7.3 writeFrequency "3" parses as the integer 3; missing defaults to "async"', () => {
    expect(
      resolveHonchoConfig({ raw: { writeFrequency: '3' }, host: 'hermes', env: {} }).writeFrequency,
    ).toBe(3);
    expect(resolveHonchoConfig({ raw: { writeFrequency: 5 }, host: 'hermes', env: {} }).writeFrequency).toBe(
      5,
    );
    expect(resolveHonchoConfig({ raw: {}, host: 'hermes', env: {} }).writeFrequency).toBe('async');
    const bad = resolveHonchoConfig({ raw: { writeFrequency: 'sometimes' }, host: 'hermes', env: {} });
    expect(bad.writeFrequency).toBe('async');
    expect(bad.warnings.join('\n')).toMatch(/writeFrequency/);
  });

  it('§2.7.4 dialecticDepth 7 clamps to 3 and 0 to 1; dialecticDepthLevels of length 1 is padded with "low"', () => {
    expect(resolveHonchoConfig({ raw: { dialecticDepth: 7 }, host: 'hermes', env: {} }).dialecticDepth).toBe(
      3,
    );
    expect(resolveHonchoConfig({ raw: { dialecticDepth: 0 }, host: 'hermes', env: {} }).dialecticDepth).toBe(
      1,
    );
    const padded = resolveHonchoConfig({
      raw: { dialecticDepth: 3, dialecticDepthLevels: ['high'] },
      host: 'hermes',
      env: {},
    });
    expect(padded.dialecticDepthLevels).toEqual(['high', 'low', 'low']);
    const invalid = resolveHonchoConfig({
      raw: { dialecticDepth: 2, dialecticDepthLevels: ['bogus', 'max', 'x'] },
      host: 'hermes',
      env: {},
    });
    expect(invalid.dialecticDepthLevels).toEqual(['low', 'max']);
  });

  it('§2.7.5 recallMode "auto" maps to hybrid; an unknown value falls back to hybrid', () => {
    expect(resolveHonchoConfig({ raw: { recallMode: 'auto' }, host: 'hermes', env: {} }).recallMode).toBe(
      'hybrid',
    );
    const unknown = resolveHonchoConfig({ raw: { recallMode: 'psychic' }, host: 'hermes', env: {} });
    expect(unknown.recallMode).toBe('hybrid');
    expect(unknown.warnings.join()).toMatch(/recallMode/);
    expect(resolveHonchoConfig({ raw: { recallMode: 'tools' }, host: 'hermes', env: {} }).recallMode).toBe(
      'tools',
    );
  });

  it('§2.7.32 a local base URL with no explicit key uses the key "local"; a trailing /v3 is stripped', () => {
    for (const url of [
      'http://127.0.0.1:8000',
      'http://10.1.2.3',
      'http://100.64.0.9:8000/v3',
      'http://localhost:8000',
    ]) {
      expect(
        effectiveApiKey({
          apiKey: 'env-cloud-key',
          apiKeyInFile: false,
          baseUrl: url,
          environment: 'production',
        }),
      ).toBe(LOCAL_API_KEY);
    }
    // A key written in honcho.json is kept for a local server; a cloud URL keeps any key.
    expect(
      effectiveApiKey({
        apiKey: 'k',
        apiKeyInFile: true,
        baseUrl: 'http://127.0.0.1:8000',
        environment: 'production',
      }),
    ).toBe('k');
    expect(
      effectiveApiKey({
        apiKey: 'k',
        apiKeyInFile: false,
        baseUrl: 'https://api.honcho.dev',
        environment: 'production',
      }),
    ).toBe('k');
    expect(effectiveBaseUrl('http://10.0.0.5:8000/v3', 'production')).toBe('http://10.0.0.5:8000');
    expect(effectiveBaseUrl('http://10.0.0.5:8000/v3/', 'production')).toBe('http://10.0.0.5:8000');
    expect(effectiveBaseUrl(undefined, 'production')).toBe('https://api.honcho.dev');
  });
});

describe('honcho settings and setup (core contract)', () => {
  it('configPaths() is the config.yaml place memory.honcho; setup reads honcho.json back through savedConfig (it listed honcho.json file paths before, so setup saw nothing the file holds)', () => {
    const h = home({ baseUrl: 'http://honcho.internal:8000', hosts: { other: { workspace: 'w' } } });
    const provider = createHonchoProvider({ userHome: h }, { hermesHome: h, env: {} });
    expect(providerConfigPaths(provider)).toEqual(['memory.honcho']);
    fs.writeFileSync(
      path.join(h, 'config.yaml'),
      'memory:\n  provider: honcho\n  honcho:\n    timeout: 12\n',
    );
    expect(readProviderConfig(loadHermesConfig(h), providerConfigPaths(provider)).values).toEqual({
      timeout: 12,
    });
    // What `hermes-memory setup honcho --set api_key=…` keeps: the non-secret baseUrl, never the key.
    expect(provider.savedConfig(h)).toEqual({ baseUrl: 'http://honcho.internal:8000' });
    provider.saveConfig({ api_key: 'hch-new-key', baseUrl: 'http://honcho.internal:8000' }, h);
    const file = JSON.parse(fs.readFileSync(path.join(h, 'honcho.json'), 'utf8'));
    expect(file).toEqual({
      apiKey: 'hch-new-key',
      baseUrl: 'http://honcho.internal:8000',
      hosts: { other: { workspace: 'w' } },
    });
    expect(fs.statSync(path.join(h, 'honcho.json')).mode & 0o777).toBe(0o600);
    expect(provider.savedConfig(h)).toEqual({ baseUrl: 'http://honcho.internal:8000' });
  });

  it('saveConfig starts $HERMES_HOME/honcho.json from ~/.honcho/config.json, so the new file does not hide its settings; a corrupt file is refused', () => {
    const h = home();
    fs.mkdirSync(path.join(h, '.honcho'));
    fs.writeFileSync(
      path.join(h, '.honcho', 'config.json'),
      JSON.stringify({ endpoint: { baseUrl: 'http://self:8000' }, peerName: 'ann' }),
    );
    const provider = createHonchoProvider({ userHome: h }, { hermesHome: h, env: {} });
    expect(provider.savedConfig(h)).toEqual({ baseUrl: 'http://self:8000' });
    provider.saveConfig({ api_key: 'k2' }, h);
    expect(JSON.parse(fs.readFileSync(path.join(h, 'honcho.json'), 'utf8'))).toEqual({
      apiKey: 'k2',
      endpoint: { baseUrl: 'http://self:8000' },
      peerName: 'ann',
    });
    fs.writeFileSync(path.join(h, 'honcho.json'), '{ torn');
    expect(() => provider.savedConfig(h)).toThrow(/honcho\.json/);
    expect(() => provider.saveConfig({ api_key: 'k3' }, h)).toThrow(/Refusing/);
    expect(fs.readFileSync(path.join(h, 'honcho.json'), 'utf8')).toBe('{ torn');
  });
});
