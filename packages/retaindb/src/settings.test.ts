import { describe, expect, it } from 'vitest';
import { createRetaindbProvider } from './index';
import { projectFor, resolveRetaindbSettings } from './settings';

describe('settings', () => {
  it('§4.9.1 isAvailable() is false without RETAINDB_API_KEY and true with it', () => {
    expect(createRetaindbProvider({}, { env: {} }).isAvailable()).toBe(false);
    expect(createRetaindbProvider({}, { env: { RETAINDB_API_KEY: 'k' } }).isAvailable()).toBe(true);
    expect(createRetaindbProvider({}, { env: {} }).unavailableReason()).toMatch(/RETAINDB_API_KEY/);
    // "Bearer " in the stored key is stripped.
    expect(resolveRetaindbSettings({}, {}, { RETAINDB_API_KEY: 'Bearer abc' }).apiKey).toBe('abc');
  });

  it('§4.9.2 the base URL defaults to https://api.retaindb.com, trailing slashes stripped', () => {
    expect(resolveRetaindbSettings({}, {}, {}).baseURL).toBe('https://api.retaindb.com');
    expect(resolveRetaindbSettings({}, {}, { RETAINDB_BASE_URL: 'https://x.example///' }).baseURL).toBe(
      'https://x.example',
    );
  });

  it('§4.9.3 base-URL precedence: env var beats config.yaml memory.retaindb.base_url beats the default', () => {
    const config = { base_url: 'https://config.example/' };
    expect(resolveRetaindbSettings({}, config, {}).baseURL).toBe('https://config.example');
    expect(resolveRetaindbSettings({}, config, { RETAINDB_BASE_URL: 'https://env.example' }).baseURL).toBe(
      'https://env.example',
    );
  });

  it('§4.9.4 project: hermes-<profile> for a named home, "default" for ~/.hermes or none; RETAINDB_PROJECT wins', () => {
    const plain = resolveRetaindbSettings({}, {}, {});
    expect(projectFor(plain, '/home/u/.hermes/profiles/work')).toBe('hermes-work');
    expect(projectFor(plain, '/home/u/.hermes')).toBe('default');
    expect(projectFor(plain, undefined)).toBe('default');
    const env = resolveRetaindbSettings({}, { project: 'from-config' }, { RETAINDB_PROJECT: 'from-env' });
    expect(projectFor(env, '/home/u/.hermes/profiles/work')).toBe('from-env');
    expect(projectFor(resolveRetaindbSettings({}, { project: 'from-config' }, {}), '/x/work')).toBe(
      'from-config',
    );
  });

  it('config schema has the three reference fields', () => {
    expect(
      createRetaindbProvider()
        .getConfigSchema()
        .map((f) => f.key),
    ).toEqual(['api_key', 'base_url', 'project']);
  });
});
