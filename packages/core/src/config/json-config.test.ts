import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SettingsError } from '../errors/memory-error';
import { mergeJsonConfig, readJsonConfig, writeJsonConfig } from './json-config';

let dir: string;
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
const fresh = () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-json-config-'));
  return path.join(dir, 'supermemory.json');
};

describe('profile JSON config', () => {
  it('reads missing, BOM-prefixed and corrupt files without throwing', () => {
    const file = fresh();
    expect(readJsonConfig(file)).toEqual({ status: 'missing', data: {} });
    fs.writeFileSync(file, '\uFEFF{"container_tag": "hermes"}');
    expect(readJsonConfig(file)).toEqual({ status: 'ok', data: { container_tag: 'hermes' } });
    fs.writeFileSync(file, '{"container_tag": ');
    const corrupt = readJsonConfig(file);
    expect(corrupt.status).toBe('invalid');
    expect(corrupt.data).toEqual({});
    fs.writeFileSync(file, '[1, 2]');
    expect(readJsonConfig(file)).toMatchObject({
      status: 'invalid',
      error: `${file} must hold a JSON object`,
    });
  });

  it('merges key by key into the existing file, atomically, 0600, with sorted keys', () => {
    const file = fresh();
    fs.writeFileSync(file, JSON.stringify({ zeta: 1, api_key_hint: 'keep me', mode: 'old' }));
    const merged = mergeJsonConfig(file, { mode: 'new', alpha: { b: 2, a: 1 }, zeta: undefined });
    expect(merged).toEqual({ api_key_hint: 'keep me', mode: 'new', alpha: { b: 2, a: 1 } });
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toBe(
      '{\n  "alpha": {\n    "a": 1,\n    "b": 2\n  },\n  "api_key_hint": "keep me",\n  "mode": "new"\n}\n',
    );
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir)).toEqual(['supermemory.json']); // no temp file left behind
  });

  it('refuses to overwrite a corrupt file instead of losing what it held', () => {
    const file = fresh();
    fs.writeFileSync(file, '{"api_key": "sk-');
    expect(() => mergeJsonConfig(file, { mode: 'x' })).toThrow(SettingsError);
    expect(fs.readFileSync(file, 'utf8')).toBe('{"api_key": "sk-');
    writeJsonConfig(file, { mode: 'x' });
    expect(readJsonConfig(file)).toEqual({ status: 'ok', data: { mode: 'x' } });
  });
});
