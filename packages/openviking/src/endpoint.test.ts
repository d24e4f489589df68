import { describe, expect, it } from 'vitest';
import { checkEndpoint, loopbackTarget } from './endpoint';

describe('endpoint', () => {
  it('§4.9.1 bare loopback hosts get the local port; a missing scheme becomes http; paths are kept', () => {
    expect(checkEndpoint('localhost')).toEqual({ ok: true, endpoint: 'http://localhost:1933' });
    expect(checkEndpoint(' 127.0.0.1 ')).toEqual({ ok: true, endpoint: 'http://127.0.0.1:1933' });
    expect(checkEndpoint('::1')).toEqual({ ok: true, endpoint: 'http://[::1]:1933' });
    expect(checkEndpoint('ov.internal:8080')).toEqual({ ok: true, endpoint: 'http://ov.internal:8080' });
    expect(checkEndpoint('https://api.vikingdb.cn-beijing.volces.com/openviking/')).toEqual({
      ok: true,
      endpoint: 'https://api.vikingdb.cn-beijing.volces.com/openviking',
    });
  });

  it('§4.9.1 refuses credentials, query, fragment, other schemes and control characters — never silently replaced', () => {
    const refused = [
      'http://user:pw@ov.example',
      'http://ov.example/?token=x',
      'http://ov.example/#frag',
      'ftp://ov.example',
      'file:///etc/passwd',
      'http://ov.example/\nX-Injected: 1',
      '',
    ];
    for (const raw of refused) {
      const result = checkEndpoint(raw);
      expect(result.ok, raw).toBe(false);
      if (!result.ok) expect(result.reason).not.toContain('pw@');
    }
  });

  it('§4.9.1 blocks cloud-metadata and unspecified addresses in every spelling', () => {
    for (const raw of [
      'http://169.254.169.254/latest',
      '169.254.170.2',
      'http://[fd00:ec2::254]',
      'http://metadata.google.internal.',
      'http://METADATA.GOOGLE.INTERNAL',
      'http://100.100.100.200',
      'http://0.0.0.0:1933',
      'http://[::ffff:169.254.169.254]',
      'http://169.254.1.1',
    ]) {
      const result = checkEndpoint(raw);
      expect(result.ok, raw).toBe(false);
    }
  });

  it('§4.9.7 only http:// loopback endpoints are eligible for auto-start', () => {
    expect(loopbackTarget('http://127.0.0.1:1933')).toEqual({ host: '127.0.0.1', port: 1933 });
    expect(loopbackTarget('http://localhost:9000')).toEqual({ host: 'localhost', port: 9000 });
    expect(loopbackTarget('http://[::1]:1933')).toEqual({ host: '::1', port: 1933 });
    expect(loopbackTarget('https://localhost:1933')).toBeNull();
    expect(loopbackTarget('http://ov.example:1933')).toBeNull();
  });
});
