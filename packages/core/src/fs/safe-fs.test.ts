import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileWriteError, UnsafePathError } from '../errors/memory-error';
import {
  checkDir,
  ensureDir,
  findStaleTempFiles,
  readFileNoFollow,
  removeStaleTempFiles,
  writeFileAtomic,
  writeNewFile,
} from './index';

let home: string;
beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-safe-fs-'));
});
afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

const mode = (file: string) => fs.statSync(file).mode & 0o777;
const secret = () => {
  const file = path.join(home, 'secret.txt');
  fs.writeFileSync(file, 'TOP SECRET');
  return file;
};

describe('writeFileAtomic', () => {
  it('replaces the file with exactly the new bytes, mode 0600, no temp file left', () => {
    const file = path.join(home, 'a', 'b', 'f.txt');
    writeFileAtomic(file, 'one');
    writeFileAtomic(file, Buffer.from('two'));
    expect(fs.readFileSync(file, 'utf8')).toBe('two');
    expect(mode(file)).toBe(0o600);
    expect(mode(path.join(home, 'a'))).toBe(0o700);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['f.txt']);
  });

  it('uses the given temp prefix and mode', () => {
    const file = path.join(home, 'g.txt');
    writeFileAtomic(file, 'x', { mode: 0o644, tempPrefix: '.mem_' });
    expect(mode(file)).toBe(0o644);
  });

  it('refuses a symbolic link at the target: the link and its target stay as they were', () => {
    const target = secret();
    const link = path.join(home, 'config.yaml');
    fs.symlinkSync(target, link);
    expect(() => writeFileAtomic(link, 'overwritten')).toThrow(UnsafePathError);
    expect(() => writeFileAtomic(link, 'overwritten')).toThrow(/symbolic link/);
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(target, 'utf8')).toBe('TOP SECRET');
    expect(fs.readdirSync(home).sort()).toEqual(['config.yaml', 'secret.txt']);
  });

  it('refuses a folder or a FIFO in place of the file', () => {
    fs.mkdirSync(path.join(home, 'dir'));
    expect(() => writeFileAtomic(path.join(home, 'dir'), 'x')).toThrow(/not a regular file/);
  });

  it('with a root, refuses a linked folder below it (and never writes through it)', () => {
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-elsewhere-'));
    try {
      fs.symlinkSync(elsewhere, path.join(home, 'memories'));
      expect(() => writeFileAtomic(path.join(home, 'memories', 'MEMORY.md'), 'x', { root: home })).toThrow(
        UnsafePathError,
      );
      expect(fs.readdirSync(elsewhere)).toEqual([]);
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it.runIf(process.platform === 'linux')(
    'a failure is a FileWriteError naming the file, the cause and the stage',
    () => {
      // /proc/self exists but takes no new files, for root too.
      const error = (() => {
        try {
          writeFileAtomic('/proc/self/config.yaml', 'x');
        } catch (e) {
          return e;
        }
      })();
      expect(FileWriteError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ path: '/proc/self/config.yaml', stage: 'open', committed: false });
      expect((error as Error).message).toMatch(
        /^Could not write \/proc\/self\/config\.yaml: .+ \(E[A-Z]+\) while creating the temp file; the file on disk is unchanged\.$/,
      );
    },
  );
});

describe('writeNewFile', () => {
  it('creates exclusively: an existing file is EEXIST, a planted link is refused, neither is touched', () => {
    const file = path.join(home, 'MEMORY.md.bak.1');
    writeNewFile(file, 'backup');
    expect(mode(file)).toBe(0o600);
    const taken = (() => {
      try {
        writeNewFile(file, 'again');
      } catch (e) {
        return e as FileWriteError;
      }
    })();
    expect(taken?.code).toBe('EEXIST');
    expect(fs.readFileSync(file, 'utf8')).toBe('backup');
    const target = secret();
    const link = path.join(home, 'MEMORY.md.bak.2');
    fs.symlinkSync(target, link);
    expect(() => writeNewFile(link, 'through the link')).toThrow(UnsafePathError);
    expect(fs.readFileSync(target, 'utf8')).toBe('TOP SECRET');
  });
});

describe('readFileNoFollow', () => {
  it('reads regular files, answers undefined for missing ones, refuses links and FIFOs', () => {
    const file = path.join(home, 'MEMORY.md');
    expect(readFileNoFollow(file)).toBeUndefined();
    fs.writeFileSync(file, 'entry');
    expect(new TextDecoder().decode(readFileNoFollow(file))).toBe('entry');
    const link = path.join(home, 'USER.md');
    fs.symlinkSync(secret(), link);
    expect(() => readFileNoFollow(link)).toThrow(UnsafePathError);
    fs.symlinkSync(path.join(home, 'nowhere'), path.join(home, 'dangling'));
    expect(() => readFileNoFollow(path.join(home, 'dangling'))).toThrow(/symbolic link/);
    if (process.platform !== 'win32') {
      const fifo = path.join(home, 'fifo');
      execFileSync('mkfifo', [fifo]);
      expect(() => readFileNoFollow(fifo)).toThrow(/not a regular file/); // and does not block
    }
  });
});

describe('ensureDir / checkDir', () => {
  it('creates missing folders 0700 one by one and accepts a linked root', () => {
    const real = path.join(home, 'real');
    fs.mkdirSync(real);
    const root = path.join(home, 'linked-home');
    fs.symlinkSync(real, root);
    expect(checkDir(path.join(root, 'cache', 'memory-spill'), { root })).toBe(false);
    ensureDir(path.join(root, 'cache', 'memory-spill'), { root });
    expect(mode(path.join(real, 'cache', 'memory-spill'))).toBe(0o700);
    expect(checkDir(path.join(root, 'cache', 'memory-spill'), { root })).toBe(true);
  });

  it('refuses a link or a file below the root', () => {
    fs.symlinkSync(os.tmpdir(), path.join(home, 'cache'));
    expect(() => ensureDir(path.join(home, 'cache', 'memory-spill'), { root: home })).toThrow(
      UnsafePathError,
    );
    expect(() => checkDir(path.join(home, 'cache', 'memory-spill'), { root: home })).toThrow(/symbolic link/);
    fs.writeFileSync(path.join(home, 'memories'), '');
    expect(() => ensureDir(path.join(home, 'memories'), { root: home })).toThrow(/not a directory/);
  });

  it.runIf(process.platform === 'linux')('fails at once where mkdir cannot create (/proc/self)', () => {
    // Node's recursive mkdirSync loops forever here.
    expect(() => ensureDir('/proc/self/memories')).toThrow(FileWriteError);
    expect(() => ensureDir('/proc/self/memories')).toThrow(
      /Could not create the folder \/proc\/self\/memories/,
    );
  });
});

describe('stale temp files', () => {
  it('removes only old regular files with our temp names, never links or fresh files', () => {
    const now = Date.now();
    const old = (name: string) => {
      const f = path.join(home, name);
      fs.writeFileSync(f, 'partial');
      fs.utimesSync(f, new Date(now - 3_600_000), new Date(now - 3_600_000));
      return f;
    };
    const stale = old('.mem_0123456789abcdef.tmp');
    const python = old('.mem_ab_cd123.tmp');
    const fresh = path.join(home, '.mem_fedcba9876543210.tmp');
    fs.writeFileSync(fresh, 'in progress');
    const notOurs = old('.mem_notes.txt');
    const target = secret();
    fs.symlinkSync(target, path.join(home, '.mem_aaaaaaaaaaaa.tmp'));
    expect(findStaleTempFiles(home, { prefix: '.mem_', now }).sort()).toEqual([python, stale].sort());
    expect(removeStaleTempFiles(home, { prefix: '.mem_', now }).sort()).toEqual([python, stale].sort());
    expect(fs.existsSync(fresh)).toBe(true);
    expect(fs.existsSync(notOurs)).toBe(true);
    expect(fs.readFileSync(target, 'utf8')).toBe('TOP SECRET');
    expect(fs.lstatSync(path.join(home, '.mem_aaaaaaaaaaaa.tmp')).isSymbolicLink()).toBe(true);
  });
});
