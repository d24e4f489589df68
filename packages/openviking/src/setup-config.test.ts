import fs from 'node:fs';
import path from 'node:path';
import { loadEnvFile, parseEnv } from '@hermes-memory/core';
import { collectLogs, tempHermesHome } from '@hermes-memory/testkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createOpenvikingProvider } from './index';
import { readOvcliProfile, writeOvcliProfile } from './ovcli';
import { type ConnectionValues, writeConnectionEnv } from './setup-config';

const homes: Array<{ cleanup(): void }> = [];
afterEach(() => {
  for (const h of homes.splice(0)) h.cleanup();
});
function home(): string {
  const h = tempHermesHome('hm-ov-save-');
  homes.push(h);
  return h.path;
}
const values = (patch: Partial<ConnectionValues>): ConnectionValues => ({
  endpoint: 'http://ov.example:1933',
  apiKey: '',
  rootApiKey: '',
  account: '',
  user: '',
  agent: '',
  ...patch,
});

describe('what setup writes', () => {
  it('§4.8 .env writer: 0600 and newline-injection-proof for new and existing keys; other OPENVIKING_* lines removed', () => {
    const h = home();
    const file = path.join(h, '.env');
    fs.writeFileSync(file, 'OPENVIKING_API_KEY=old\nOPENVIKING_USER=stale\nKEEP=1\n', { mode: 0o644 });
    const written = writeConnectionEnv(
      h,
      values({ apiKey: 'k1\r\nOPENVIKING_ENDPOINT=http://evil.example', agent: 'peer\u2028X=1\0' }),
    );
    expect(written).toEqual(['OPENVIKING_ENDPOINT', 'OPENVIKING_API_KEY', 'OPENVIKING_AGENT']);
    const text = fs.readFileSync(file, 'utf8');
    expect(text.split('\n')).toHaveLength(5); // four lines and the final newline: nothing injected
    expect(parseEnv(text)).toEqual({
      OPENVIKING_API_KEY: 'k1OPENVIKING_ENDPOINT=http://evil.example',
      KEEP: '1',
      OPENVIKING_ENDPOINT: 'http://ov.example:1933',
      OPENVIKING_AGENT: 'peerX=1',
    });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    writeConnectionEnv(h, null);
    expect(loadEnvFile(h)).toEqual({ KEEP: '1' });
  });

  it('§4.8 .env chmod failure is logged and the write goes on; the ovcli writer is 0600', () => {
    const h = home();
    const logs = collectLogs();
    const spy = vi.spyOn(fs, 'fchmodSync').mockImplementation(() => {
      throw Object.assign(new Error('EPERM: operation not permitted, fchmod'), { code: 'EPERM' });
    });
    try {
      writeConnectionEnv(h, values({}), logs.logger);
    } finally {
      spy.mockRestore();
    }
    expect(logs.contains(/Could not restrict .*\.env to mode 0600: EPERM/)).toBe(true);
    expect(loadEnvFile(h)).toEqual({ OPENVIKING_ENDPOINT: 'http://ov.example:1933' });
    const profile = path.join(h, 'ovcli', 'ovcli.conf.work');
    writeOvcliProfile(profile, { url: 'http://ov.example:1933', api_key: 'secret-key-1' });
    expect(fs.statSync(profile).mode & 0o777).toBe(0o600);
    expect(readOvcliProfile(profile)).toMatchObject({ apiKey: 'secret-key-1' });
  });

  it('§4.7 saveConfig normalises the endpoint and never writes api_key / root_api_key to config.yaml', async () => {
    const h = home();
    const provider = createOpenvikingProvider({}, { env: {} });
    await provider.saveConfig(
      { endpoint: 'localhost', api_key: 'never-here-1', root_api_key: 'never-here-2', agent: 'hermes' },
      h,
    );
    const config = fs.readFileSync(path.join(h, 'config.yaml'), 'utf8');
    expect(config).toContain('endpoint: http://localhost:1933');
    expect(config).toContain('agent: hermes');
    expect(config).not.toMatch(/never-here|api_key/);
    expect(() => provider.saveConfig({ endpoint: 'http://169.254.169.254' }, h)).toThrow(/blocked address/);
    expect(fs.readFileSync(path.join(h, 'config.yaml'), 'utf8')).toBe(config);
  });
});
