/**
 * Both programs writing MEMORY.md at once: a writer following the Python agent's protocol
 * (`fcntl.flock` on MEMORY.md.lock, re-read, append, atomic replace — test/python/memory_file.py)
 * racing this package's store. Nothing may be lost.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { withFileLock } from '@hermes-memory/core';
import { describe, expect, it } from 'vitest';
import { py, pySpawn, requirePython } from '../../test/helpers/python';
import { tempHome } from '../../test/helpers/temp';
import { parseEntries } from './entries';
import { MemoryStore } from './memory-store';

const LIMIT = 10_000_000;

function memoryFile(home: string): string {
  fs.mkdirSync(path.join(home, 'memories'), { recursive: true });
  return path.join(home, 'memories', 'MEMORY.md');
}

async function ourWriter(home: string, count: number): Promise<number> {
  const store = new MemoryStore({ hermesHome: home, memoryCharLimit: LIMIT, lockTimeoutMs: 120_000 }).load();
  let failed = 0;
  for (let i = 0; i < count; i++) if (!(await store.add('memory', `ts entry ${i}`)).success) failed++;
  return failed;
}

function lost(file: string, expected: string[]): string[] {
  const present = new Set(parseEntries(fs.readFileSync(file, 'utf8')));
  return expected.filter((e) => !present.has(e));
}

describe('Python compatibility: both programs writing at once', { timeout: 240_000 }, () => {
  it('python3 is available (the suite fails, never skips, without it)', () => {
    expect(requirePython).not.toThrow();
  });

  it('§63 a Python writer racing our store: 200 + 200 entries, none lost', async () => {
    const home = tempHome();
    const file = memoryFile(home);
    const [theirs, ourFailures] = await Promise.all([
      py<{ done: number }>('add', file, 'a', '200', String(LIMIT)),
      ourWriter(home, 200),
    ]);
    expect(theirs.done).toBe(200);
    expect(ourFailures).toBe(0);
    const expected = [
      ...Array.from({ length: 200 }, (_, i) => `py a entry ${i}`),
      ...Array.from({ length: 200 }, (_, i) => `ts entry ${i}`),
    ];
    expect(lost(file, expected)).toEqual([]);
    expect(parseEntries(fs.readFileSync(file, 'utf8'))).toHaveLength(400);
  });

  it('§63 two Python writers and ours: 3 × 300 entries, none lost', async () => {
    const home = tempHome();
    const file = memoryFile(home);
    const [a, b, ourFailures] = await Promise.all([
      py<{ done: number }>('add', file, 'a', '300', String(LIMIT)),
      py<{ done: number }>('add', file, 'b', '300', String(LIMIT)),
      ourWriter(home, 300),
    ]);
    expect([a.done, b.done, ourFailures]).toEqual([300, 300, 0]);
    const expected = ['a', 'b']
      .flatMap((w) => Array.from({ length: 300 }, (_, i) => `py ${w} entry ${i}`))
      .concat(Array.from({ length: 300 }, (_, i) => `ts entry ${i}`));
    expect(lost(file, expected)).toEqual([]);
  });

  it('our lock is the lock the Python agent takes: it sees it held, and waits', async () => {
    const home = tempHome();
    const file = memoryFile(home);
    await withFileLock(`${file}.lock`, async () => {
      expect((await py<{ lock: string }>('try-lock', file)).lock).toBe('held');
    });
    expect((await py<{ lock: string }>('try-lock', file)).lock).toBe('free');
  });

  it('a write waits while the Python agent holds the lock, and lands after it lets go', async () => {
    const home = tempHome();
    const file = memoryFile(home);
    const holder = pySpawn('hold', file);
    await new Promise<void>((resolve, reject) => {
      holder.stdout!.on('data', (d) => String(d).includes('locked') && resolve());
      holder.once('exit', (code) => reject(new Error(`holder exited ${code}`)));
    });
    const store = new MemoryStore({ hermesHome: home, lockTimeoutMs: 300 }).load();
    const refused = await store.add('memory', 'written while Python holds the lock');
    expect(refused.success).toBe(false);
    expect(String(refused.error)).toMatch(/Could not acquire the memory file lock/);
    expect(fs.existsSync(file)).toBe(false);
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    holder.stdin!.end('go\n');
    await exited;
    expect((await store.add('memory', 'written after Python let go')).success).toBe(true);
    expect(parseEntries(fs.readFileSync(file, 'utf8'))).toEqual(['written after Python let go']);
  });

  it("never deletes or replaces the Python agent's lock file", async () => {
    const home = tempHome();
    const file = memoryFile(home);
    await py('add-text', file, '2200', 'a first entry by Python');
    const lock = `${file}.lock`;
    const before = fs.statSync(lock);
    expect(before.size).toBe(0);
    const store = new MemoryStore({ hermesHome: home }).load();
    for (let i = 0; i < 5; i++) expect((await store.add('memory', `entry ${i}`)).success).toBe(true);
    const after = fs.statSync(lock);
    expect([after.ino, after.size]).toEqual([before.ino, 0]);
    expect(fs.statSync(lock).mode & 0o777).toBe(0o600);
  });
});
