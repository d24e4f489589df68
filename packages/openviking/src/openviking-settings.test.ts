import fs from 'node:fs';
import path from 'node:path';
import { tempHermesHome } from '@hermes-memory/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenvikingProvider } from './index';
import { connectionFingerprint, identityProblem, resolveOpenvikingSettings } from './openviking-settings';
import { discoverOvcliProfiles } from './ovcli';

const homes: Array<{ cleanup(): void }> = [];
afterEach(() => {
  for (const h of homes.splice(0)) h.cleanup();
});

function ovcli(data: Record<string, unknown>, name = 'ovcli.conf'): { file: string; home: string } {
  const h = tempHermesHome('hm-ov-ovcli-');
  homes.push(h);
  fs.mkdirSync(path.join(h.path, '.openviking'));
  const file = path.join(h.path, '.openviking', name);
  fs.writeFileSync(file, JSON.stringify(data));
  return { file, home: h.path };
}

describe('settings', () => {
  it('§4.9.2 layering per field: env → linked ovcli → config.yaml → default', () => {
    const { file } = ovcli({
      url: 'http://ovcli.example:1933',
      account: 'acct-o',
      user: 'u-o',
      actor_peer_id: 'peer-o',
    });
    const config = {
      endpoint: 'http://config.example',
      account: 'acct-c',
      user: 'u-c',
      agent: 'peer-c',
      use_ovcli_config: true,
      ovcli_config_path: file,
    };
    const fromOvcli = resolveOpenvikingSettings({}, config, {});
    expect(fromOvcli).toMatchObject({
      endpoint: 'http://ovcli.example:1933',
      account: 'acct-o',
      user: 'u-o',
      agent: 'peer-o',
    });
    expect(fromOvcli.sources).toMatchObject({ endpoint: 'ovcli', account: 'ovcli', agent: 'ovcli' });
    const fromEnv = resolveOpenvikingSettings({}, config, {
      OPENVIKING_ENDPOINT: 'http://env.example',
      OPENVIKING_AGENT: 'peer-e',
    });
    expect(fromEnv).toMatchObject({ endpoint: 'http://env.example', agent: 'peer-e', account: 'acct-o' });
    const fromConfig = resolveOpenvikingSettings({}, { ...config, use_ovcli_config: false }, {});
    expect(fromConfig).toMatchObject({
      endpoint: 'http://config.example',
      account: 'acct-c',
      agent: 'peer-c',
    });
    expect(fromConfig.sources.endpoint).toBe('config');
    const defaults = resolveOpenvikingSettings({}, {}, {});
    expect(defaults).toMatchObject({
      endpoint: 'http://127.0.0.1:1933',
      configured: false,
      account: '',
      user: '',
      agent: '',
    });
  });

  it('§4.9.2 the API key is never read from config.yaml; env and ovcli supply it', () => {
    expect(
      resolveOpenvikingSettings({}, { endpoint: 'http://a.example', api_key: 'from-config-yaml' }, {}).apiKey,
    ).toBe('');
    expect(resolveOpenvikingSettings({}, {}, { OPENVIKING_API_KEY: 'k-env' }).apiKey).toBe('k-env');
    const { file } = ovcli({ url: 'http://o.example', api_key: 'k-ovcli' });
    expect(resolveOpenvikingSettings({}, {}, { OPENVIKING_CLI_CONFIG_FILE: file }).apiKey).toBe('k-ovcli');
  });

  it('§4.9.2 OPENVIKING_ACCOUNT/USER win even when empty; a user key drops the profile account/user', () => {
    const { file } = ovcli({ url: 'http://o.example', account: 'acct', user: 'bob' });
    const empty = resolveOpenvikingSettings(
      {},
      {},
      { OPENVIKING_CLI_CONFIG_FILE: file, OPENVIKING_ACCOUNT: '', OPENVIKING_USER: '' },
    );
    expect(empty).toMatchObject({ account: '', user: '' });
    expect(empty.sources).toMatchObject({ account: 'env', user: 'env' });
    const keyed = ovcli({
      url: 'http://o.example',
      api_key: 'user-key',
      root_api_key: 'root-key',
      account: 'acct',
      user: 'bob',
    });
    expect(resolveOpenvikingSettings({}, {}, { OPENVIKING_CLI_CONFIG_FILE: keyed.file })).toMatchObject({
      account: '',
      user: '',
    });
    const root = ovcli({
      url: 'http://o.example',
      api_key: 'root-key',
      root_api_key: 'root-key',
      account: 'acct',
      user: 'bob',
    });
    expect(resolveOpenvikingSettings({}, {}, { OPENVIKING_CLI_CONFIG_FILE: root.file })).toMatchObject({
      account: 'acct',
      user: 'bob',
    });
  });

  it('§4.9.2 OPENVIKING_CLI_CONFIG_FILE beats the saved path; profiles are discovered (env, saved; .bak and invalid skipped; active marked)', () => {
    const saved = ovcli({ url: 'http://saved.example' });
    const pointed = ovcli({ url: 'http://pointed.example' }, 'ovcli.conf.work');
    const config = { use_ovcli_config: true, ovcli_config_path: saved.file };
    expect(resolveOpenvikingSettings({}, config, { OPENVIKING_CLI_CONFIG_FILE: pointed.file }).endpoint).toBe(
      'http://pointed.example',
    );
    const dir = path.join(pointed.home, '.openviking');
    fs.writeFileSync(path.join(dir, 'ovcli.conf'), '{"url":"http://active.example"}');
    fs.writeFileSync(path.join(dir, 'ovcli.conf.bak'), '{"url":"http://old.example"}');
    fs.writeFileSync(path.join(dir, 'ovcli.conf.broken'), 'not json');
    fs.writeFileSync(path.join(dir, 'ovcli.conf.home'), '{"url":"active.example"}'); // same connection
    const invalid: string[] = [];
    const discovered = discoverOvcliProfiles({ HOME: pointed.home }, (file) => invalid.push(file));
    expect(discovered.map((p) => [p.name, p.source, p.active])).toEqual([
      ['home', 'saved', true],
      ['work', 'saved', false],
    ]);
    expect(invalid).toEqual([path.join(dir, 'ovcli.conf.broken')]);
    // The env-pointed file comes first (listed once); the active file alone only when nothing else is found.
    const env = { HOME: pointed.home, OPENVIKING_CLI_CONFIG_FILE: pointed.file };
    expect(discoverOvcliProfiles(env).map((p) => [p.name, p.path])).toEqual([
      ['OPENVIKING_CLI_CONFIG_FILE', pointed.file],
      ['home', path.join(dir, 'ovcli.conf.home')],
    ]);
    const lone = ovcli({ url: 'http://lone.example' });
    expect(discoverOvcliProfiles({ HOME: lone.home }).map((p) => [p.name, p.source, p.active])).toEqual([
      ['ovcli.conf', 'active', true],
    ]);
    // An invalid env-pointed profile is skipped and left exactly as it was.
    fs.writeFileSync(saved.file, '[1, 2]');
    expect(discoverOvcliProfiles({ HOME: lone.home, OPENVIKING_CLI_CONFIG_FILE: saved.file })).toHaveLength(1);
    expect(fs.readFileSync(saved.file, 'utf8')).toBe('[1, 2]');
  });

  it('§4.9.2 recall settings are clamped; invalid values fall back with one warning', () => {
    const s = resolveOpenvikingSettings(
      {},
      { recall_limit: 500, recall_score_threshold: 'high', recall_timeout_seconds: 2 },
      { OPENVIKING_RECALL_FULL_READ_LIMIT: '3' },
    );
    expect(s.recall).toMatchObject({
      limit: 100,
      scoreThreshold: 0.15,
      timeoutMs: 2000,
      fullReadLimit: 3,
      requestTimeoutMs: 3000,
    });
    expect(s.warnings).toEqual(['OpenViking setting recall_score_threshold=high is invalid; using 0.15.']);
  });

  it('§4.9.2 identity values follow the server rules; isAvailable needs a configured, valid endpoint and no I/O', () => {
    expect(identityProblem('account', '_system')).toMatch(/must not start/);
    expect(identityProblem('user', 'a@b@c')).toMatch(/more than one/);
    expect(identityProblem('user', ' bob')).toMatch(/only contain/);
    expect(identityProblem('user', 'bob.smith@example.com')).toBeNull();
    expect(createOpenvikingProvider({}, { env: {} }).isAvailable()).toBe(false);
    expect(createOpenvikingProvider({}, { env: { OPENVIKING_ENDPOINT: 'localhost' } }).isAvailable()).toBe(
      true,
    );
    const bad = createOpenvikingProvider({}, { env: { OPENVIKING_ENDPOINT: 'http://169.254.169.254' } });
    expect(bad.isAvailable()).toBe(false);
    expect(bad.unavailableReason()).toMatch(/blocked address/);
    const a = resolveOpenvikingSettings({}, {}, { OPENVIKING_ENDPOINT: 'http://a.example' });
    const b = resolveOpenvikingSettings(
      {},
      {},
      { OPENVIKING_ENDPOINT: 'http://a.example', OPENVIKING_API_KEY: 'k' },
    );
    expect(connectionFingerprint(a)).not.toBe(connectionFingerprint(b));
  });
});
