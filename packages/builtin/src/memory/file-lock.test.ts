/** The memory store over core's file lock (the lock itself is tested in core: fs/file-lock.test.ts). */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempHome } from '../../test/helpers/temp';
import { MemoryStore } from './memory-store';

describe('the memory store under its file lock', () => {
  it('refuses a symlinked lock file; the store reports it as a JSON-able error and writes nothing', async () => {
    const home = tempHome();
    const s = new MemoryStore({ hermesHome: home, lockTimeoutMs: 100 }).load();
    fs.symlinkSync(path.join(home, 'elsewhere'), `${s.pathFor('memory')}.lock`);
    const r = await s.add('memory', 'x');
    expect(r.success).toBe(false);
    expect(String(r.error)).toMatch(/symbolic link/);
    expect(fs.existsSync(s.pathFor('memory'))).toBe(false);
    expect(fs.existsSync(path.join(home, 'elsewhere'))).toBe(false);
  });
});
