import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRecordingLogger } from '@hermes-memory/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempHome } from '../../test/helpers/temp';
import { MemoryStore } from './memory-store';

// §12 (red team, high): a MEMORY.md that is a link to another file was read into the system prompt
// and copied into MEMORY.md on the next write; the drift backup was written through a planted
// link. Nothing inside HERMES_HOME is followed through a symbolic link.
let outside: string;
let secret: string;
beforeEach(() => {
  outside = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-outside-'));
  secret = path.join(outside, 'id_rsa');
  fs.writeFileSync(secret, 'PRIVATE KEY MATERIAL');
});
afterEach(() => fs.rmSync(outside, { recursive: true, force: true }));

describe('MemoryStore and symbolic links (§12)', () => {
  it('a linked MEMORY.md is never read into the prompt nor copied; writes are refused with a clear error', async () => {
    const home = tempHome();
    fs.mkdirSync(path.join(home, 'memories'));
    fs.symlinkSync(secret, path.join(home, 'memories', 'MEMORY.md'));
    const logger = createRecordingLogger();
    const s = new MemoryStore({ hermesHome: home, logger }).load();
    expect(s.formatForSystemPrompt('memory')).toBeNull();
    expect(s.entries('memory')).toEqual([]);
    expect(logger.records.some((r) => r.level === 'warn' && /symbolic link/.test(r.message))).toBe(true);
    for (const r of [await s.add('memory', 'new fact'), await s.remove('memory', 'KEY')]) {
      expect(r.success).toBe(false);
      expect(String(r.error)).toMatch(/Refusing to write MEMORY\.md: .*symbolic link/);
    }
    expect(fs.lstatSync(path.join(home, 'memories', 'MEMORY.md')).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(secret, 'utf8')).toBe('PRIVATE KEY MATERIAL');
  });

  it('a linked memories folder is refused: nothing read from it, nothing written into it', async () => {
    const home = tempHome();
    fs.writeFileSync(path.join(outside, 'MEMORY.md'), 'planted entry');
    fs.symlinkSync(outside, path.join(home, 'memories'));
    const s = new MemoryStore({ hermesHome: home }).load();
    expect(s.formatForSystemPrompt('memory')).toBeNull();
    const r = await s.add('memory', 'x');
    expect(r.success).toBe(false);
    expect(String(r.error)).toMatch(/symbolic link/);
    expect(fs.readdirSync(outside).sort()).toEqual(['MEMORY.md', 'id_rsa']);
    expect(fs.readFileSync(path.join(outside, 'MEMORY.md'), 'utf8')).toBe('planted entry');
  });

  it('an explicit memoryDir may itself be a link (the host chose it)', async () => {
    const link = path.join(tempHome(), 'mem');
    fs.symlinkSync(outside, link);
    const s = new MemoryStore({ memoryDir: link }).load();
    expect((await s.add('memory', 'kept')).success).toBe(true);
    expect(fs.readFileSync(path.join(outside, 'MEMORY.md'), 'utf8')).toBe('kept');
  });

  it('a drift backup is never written through a planted link at the predictable .bak name', async () => {
    const home = tempHome();
    const s = new MemoryStore({ hermesHome: home, memoryCharLimit: 50 }).load();
    await s.add('memory', 'one');
    const drifted = `one\n§\ntwo${'\nappended by a shell'.repeat(5)}`;
    fs.writeFileSync(s.pathFor('memory'), drifted);
    const now = Math.floor(Date.now() / 1000);
    for (let t = now; t <= now + 3; t++) fs.symlinkSync(secret, `${s.pathFor('memory')}.bak.${t}`);
    const r = await s.remove('memory', 'one');
    expect(r.success).toBe(false);
    const backup = String(r.drift_backup);
    expect(backup).toMatch(/MEMORY\.md\.bak\.\d+\.1$/);
    expect(fs.lstatSync(backup).isFile()).toBe(true);
    expect(fs.readFileSync(backup, 'utf8')).toBe(drifted);
    expect(fs.statSync(backup).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(secret, 'utf8')).toBe('PRIVATE KEY MATERIAL');
  });
});

describe('MemoryStore: temp files left by killed writers (§12)', () => {
  it('the first write removes stale .mem_*.tmp files, keeps fresh ones and never follows a link', async () => {
    const home = tempHome();
    const dir = path.join(home, 'memories');
    fs.mkdirSync(dir);
    const hourAgo = new Date(Date.now() - 3_600_000);
    const stale = path.join(dir, '.mem_0123456789abcdef.tmp');
    const staleRef = path.join(dir, '.mem_k3x9_a1b.tmp'); // the Python reference's mkstemp name
    for (const f of [stale, staleRef]) {
      fs.writeFileSync(f, 'half an entry');
      fs.utimesSync(f, hourAgo, hourAgo);
    }
    const fresh = path.join(dir, '.mem_fedcba9876543210.tmp');
    fs.writeFileSync(fresh, 'a write in progress elsewhere');
    const link = path.join(dir, '.mem_aaaaaaaaaaaaaaaa.tmp');
    fs.symlinkSync(secret, link);
    const s = new MemoryStore({ hermesHome: home }).load();
    expect((await s.add('memory', 'fact')).success).toBe(true);
    expect(fs.existsSync(stale)).toBe(false);
    expect(fs.existsSync(staleRef)).toBe(false);
    expect(fs.existsSync(fresh)).toBe(true);
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(secret, 'utf8')).toBe('PRIVATE KEY MATERIAL');
  });
});
