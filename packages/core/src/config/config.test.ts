import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SettingsError } from '../errors/memory-error';
import {
  getConfigValue,
  loadEnvFile,
  loadHermesConfig,
  parseEnv,
  readProviderConfig,
  resolveEnv,
  resolveHermesHome,
  saveConfigValues,
  validateConfigValues,
  writeEnvValues,
} from './index';

let home: string;
beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-config-'));
});
afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

const mode = (file: string) => fs.statSync(file).mode & 0o777;

describe('resolveHermesHome', () => {
  it('uses HERMES_HOME, expanding ~ and resolving relative paths', () => {
    expect(resolveHermesHome({ HERMES_HOME: '/tmp/x' })).toBe('/tmp/x');
    expect(resolveHermesHome({ HERMES_HOME: '~/prof' })).toBe(path.join(os.homedir(), 'prof'));
    expect(resolveHermesHome({ HERMES_HOME: 'rel' })).toBe(path.resolve('rel'));
  });
  it('defaults to ~/.hermes (also for a blank value)', () => {
    expect(resolveHermesHome({})).toBe(path.join(os.homedir(), '.hermes'));
    expect(resolveHermesHome({ HERMES_HOME: '  ' })).toBe(path.join(os.homedir(), '.hermes'));
  });
});

describe('loadHermesConfig', () => {
  it('gives the reference defaults when the file is missing', () => {
    const c = loadHermesConfig(home);
    expect(c.memory).toMatchObject({
      provider: '',
      memoryEnabled: true,
      userProfileEnabled: true,
      memoryCharLimit: 2200,
      userCharLimit: 1375,
      nudgeInterval: 10,
      flushMinTurns: 6,
    });
    expect(c.raw).toEqual({});
    expect(c.memory.providerConfig('honcho')).toEqual({});
  });
  it('reads keys, coerces string limits and exposes provider blocks as copies', () => {
    fs.writeFileSync(
      path.join(home, 'config.yaml'),
      [
        'model: gpt-4o',
        'memory:',
        '  provider: honcho',
        '  memory_char_limit: "3000"',
        '  user_char_limit: 900',
        '  memory_enabled: false',
        '  honcho:',
        '    workspace: hermes',
        '    recall_mode: hybrid',
        'compression:',
        '  checkpoint_required: true',
      ].join('\n'),
    );
    const c = loadHermesConfig(home);
    expect(c.memory.provider).toBe('honcho');
    expect(c.memory.memoryCharLimit).toBe(3000);
    expect(c.memory.userCharLimit).toBe(900);
    expect(c.memory.memoryEnabled).toBe(false);
    const block = c.memory.providerConfig('honcho');
    expect(block).toEqual({ workspace: 'hermes', recall_mode: 'hybrid' });
    block.workspace = 'changed';
    expect(c.memory.providerConfig('honcho').workspace).toBe('hermes');
    expect(getConfigValue(c, 'compression.checkpoint_required')).toBe(true);
    expect(c.raw.model).toBe('gpt-4o');
  });
  it('falls back to the default for a non-numeric limit', () => {
    fs.writeFileSync(path.join(home, 'config.yaml'), 'memory:\n  memory_char_limit: lots\n');
    expect(loadHermesConfig(home).memory.memoryCharLimit).toBe(2200);
  });
  it('throws a one-line SettingsError naming the file for corrupt YAML', () => {
    const file = path.join(home, 'config.yaml');
    fs.writeFileSync(file, 'memory:\n  provider: [unclosed\n  x: : :\n');
    let error: unknown;
    try {
      loadHermesConfig(home);
    } catch (e) {
      error = e;
    }
    expect(SettingsError.isInstance(error)).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain(file);
    expect(message).not.toContain('\n');
    // The parser's "…at line 3, column 3:" introduced an excerpt the one-line message leaves out.
    expect(message).toMatch(/at line \d+, column \d+$/);
  });
  it('rejects a top level that is not a mapping', () => {
    fs.writeFileSync(path.join(home, 'config.yaml'), '- a\n- b\n');
    expect(() => loadHermesConfig(home)).toThrow(/top level must be a mapping/);
  });
});

describe('saveConfigValues', () => {
  it('creates the file with mode 0600', () => {
    saveConfigValues(home, { 'memory.provider': 'holographic' });
    expect(loadHermesConfig(home).memory.provider).toBe('holographic');
    expect(mode(path.join(home, 'config.yaml'))).toBe(0o600);
  });
  it('keeps other keys and comments, accepts nested patches, deletes with undefined', () => {
    const file = path.join(home, 'config.yaml');
    fs.writeFileSync(file, '# my settings\nmodel: x\nmemory:\n  provider: honcho\n  nudge_interval: 4\n');
    saveConfigValues(home, {
      memory: { provider: '', holographic: { db: 'a.db' } },
      'memory.nudge_interval': undefined,
    });
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain('# my settings');
    const c = loadHermesConfig(home);
    expect(c.raw.model).toBe('x');
    expect(c.memory.provider).toBe('');
    expect(c.memory.nudgeInterval).toBe(10);
    expect(c.memory.providerConfig('holographic')).toEqual({ db: 'a.db' });
    expect(fs.readdirSync(home).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
  it('deleting a key under a mapping that does not exist is a no-op', () => {
    saveConfigValues(home, { 'memory.holographic.db_path': undefined, 'plugins.x.y': 1 });
    expect(loadHermesConfig(home).raw).toEqual({ plugins: { x: { y: 1 } } });
  });
  it('refuses to overwrite a corrupt file', () => {
    const file = path.join(home, 'config.yaml');
    fs.writeFileSync(file, 'a: [\n');
    expect(() => saveConfigValues(home, { b: 1 })).toThrow(SettingsError);
    expect(fs.readFileSync(file, 'utf8')).toBe('a: [\n');
  });
});

describe('symbolic links (§12 red team)', () => {
  it('saveConfigValues and writeEnvValues refuse a linked config.yaml / .env and leave the target alone', () => {
    const target = path.join(home, 'elsewhere.txt');
    fs.writeFileSync(target, 'note: not yours\n');
    fs.symlinkSync(target, path.join(home, 'config.yaml'));
    fs.symlinkSync(target, path.join(home, '.env'));
    expect(() => saveConfigValues(home, { 'memory.provider': 'x' })).toThrow(/symbolic link/);
    expect(() => writeEnvValues(home, { A: '1' })).toThrow(/symbolic link/);
    expect(fs.readFileSync(target, 'utf8')).toBe('note: not yours\n');
    expect(fs.lstatSync(path.join(home, 'config.yaml')).isSymbolicLink()).toBe(true);
  });
});

describe('.env files', () => {
  it('parses quotes, comments, export prefix and escapes', () => {
    const env = parseEnv(
      [
        '\uFEFF# comment',
        'A=1',
        'export B = two ',
        'C="quoted # not comment"',
        "D='single $x'",
        'E=value # trailing comment',
        'F="line1\\nline2"',
        'G="multi',
        'line"',
        'not a line',
        '1BAD=x',
        'H=',
      ].join('\n'),
    );
    expect(env).toEqual({
      A: '1',
      B: 'two',
      C: 'quoted # not comment',
      D: 'single $x',
      E: 'value',
      F: 'line1\nline2',
      G: 'multi\nline',
      H: '',
    });
  });
  it('loadEnvFile returns {} when the file is missing', () => {
    expect(loadEnvFile(home)).toEqual({});
  });
  it('resolveEnv overlays .env on the process env (file wins) without mutating the input', () => {
    fs.writeFileSync(path.join(home, '.env'), 'KEY=from-file\n');
    const base = { KEY: 'from-shell', OTHER: 'o' };
    expect(resolveEnv(home, base)).toEqual({ KEY: 'from-file', OTHER: 'o' });
    expect(base.KEY).toBe('from-shell');
  });
  it('writeEnvValues replaces existing keys, appends new ones, skips invalid names, mode 0600', () => {
    const file = path.join(home, '.env');
    fs.writeFileSync(file, '# keep me\nexport A=old\nB=keep\nA=dupe\n');
    const r = writeEnvValues(home, { A: 'new value', C: 'x"y$z', 'BAD-NAME': 'no', D: undefined });
    expect(r).toEqual({ written: ['A', 'C', 'D'], skipped: ['BAD-NAME'] });
    const text = fs.readFileSync(file, 'utf8');
    expect(text.split('\n')[0]).toBe('# keep me');
    expect(text).not.toContain('BAD-NAME');
    expect(loadEnvFile(home)).toEqual({ A: 'new value', B: 'keep', C: 'x"y$z' });
    expect(mode(file)).toBe(0o600);
  });
  it('writeEnvValues keeps other lines byte for byte (undecodable bytes, CRLF), tolerates a BOM, drops NUL', () => {
    const file = path.join(home, '.env');
    const latin1 = Buffer.from('NAME=Jos\xe9\r\n', 'latin1'); // cp1252 text: not valid UTF-8
    fs.writeFileSync(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('A=old\n'), latin1]));
    writeEnvValues(home, { A: 'new', B: 'x\0y' });
    const bytes = fs.readFileSync(file);
    expect(bytes.subarray(0, 6).toString()).toBe('A=new\n'); // the BOM did not hide A
    expect(bytes.includes(Buffer.from('NAME=Jos\xe9\n', 'latin1'))).toBe(true);
    expect(loadEnvFile(home).B).toBe('xy');
  });
  it('writeEnvValues logs a failure to set mode 0600 when given a logger, and still writes', () => {
    const failure = Object.assign(new Error('EPERM: operation not permitted, fchmod'), { code: 'EPERM' });
    const spy = vi.spyOn(fs, 'fchmodSync').mockImplementation(() => {
      throw failure;
    });
    try {
      expect(() => writeEnvValues(home, { A: '1' })).toThrow(/EPERM/);
      const warnings: string[] = [];
      writeEnvValues(home, { A: '2' }, { logger: { warn: (m: string) => warnings.push(m) } });
      expect(warnings).toEqual([expect.stringMatching(/Could not restrict .*\.env to mode 0600: EPERM/)]);
      expect(loadEnvFile(home)).toEqual({ A: '2' });
    } finally {
      spy.mockRestore();
    }
  });
  it('writeEnvValues removes a variable given undefined', () => {
    writeEnvValues(home, { A: '1', B: '2' });
    writeEnvValues(home, { A: undefined });
    expect(loadEnvFile(home)).toEqual({ B: '2' });
  });
});

describe('provider config places and validation', () => {
  it('merges every place a provider reads, the first winning, and reports disagreements', () => {
    fs.writeFileSync(
      path.join(home, 'config.yaml'),
      [
        'plugins:',
        '  hermes-memory-store:',
        '    db_path: /a.db',
        "    default_trust: '0.6'",
        'memory:',
        '  holographic:',
        '    db_path: /b.db',
        '    default_trust: 0.6',
        '    compat: reference',
        '',
      ].join('\n'),
    );
    const read = readProviderConfig(loadHermesConfig(home), [
      'plugins.hermes-memory-store',
      'memory.holographic',
    ]);
    expect(read.values).toEqual({ db_path: '/a.db', default_trust: '0.6', compat: 'reference' });
    expect(read.conflicts).toEqual([
      {
        key: 'db_path',
        used: { path: 'plugins.hermes-memory-store', value: '/a.db' },
        ignored: [{ path: 'memory.holographic', value: '/b.db' }],
      },
    ]);
  });

  it('checks numbers, integers, bounds, booleans and choices; numeric strings are numbers', () => {
    const fields = [
      { key: 'n', description: '', type: 'integer', minimum: 1 },
      { key: 'x', description: '', type: 'number', maximum: 1 },
      { key: 'b', description: '', type: 'boolean' },
      { key: 'c', description: '', choices: ['a', 'b'] },
    ] as const;
    expect(validateConfigValues(fields, { n: '12', x: 0.5, b: 'yes', c: 'a', other: 'kept' })).toEqual([]);
    expect(
      validateConfigValues(fields, { n: 'abc', x: 2, b: 'maybe', c: 'z' }).map((p) => p.message),
    ).toEqual([
      `'n' must be an integer, got "abc"`,
      "'x' must be at most 1, got 2",
      `'b' must be true or false, got "maybe"`,
      `'c' must be one of a, b, got "z"`,
    ]);
  });

  it('malformed memory.* values keep their defaults and are reported, not silently replaced', () => {
    fs.writeFileSync(
      path.join(home, 'config.yaml'),
      'memory:\n  memory_char_limit: abc\n  nudge_interval: 5\n',
    );
    const config = loadHermesConfig(home);
    expect(config.memory.memoryCharLimit).toBe(2200);
    expect(config.memory.nudgeInterval).toBe(5);
    expect(config.memory.problems.map((p) => p.message)).toEqual([
      `'memory.memory_char_limit' must be an integer, got "abc"`,
    ]);
  });
});
