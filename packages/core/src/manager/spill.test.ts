import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spillDir, spillText } from './spill';

let home: string;
let elsewhere: string;
beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-spill-'));
  elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-user-files-'));
});
afterEach(() => {
  fs.rmSync(home, { recursive: true, force: true });
  fs.rmSync(elsewhere, { recursive: true, force: true });
});

function userFiles(n: number): void {
  for (let i = 0; i < n; i++) fs.writeFileSync(path.join(elsewhere, `note-${i}.md`), `user note ${i}`);
}

const spill = (i = 0) =>
  spillText('z'.repeat(5000), {
    hermesHome: home,
    limit: 1000,
    label: 'ext',
    now: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
  });

describe('spill folder safety (§12 red team)', () => {
  it('a symlinked spill folder is refused: nothing written into it, nothing pruned from it', () => {
    userFiles(80);
    fs.mkdirSync(path.join(home, 'cache'));
    fs.symlinkSync(elsewhere, spillDir(home));
    const result = spill();
    expect(result.file).toBeUndefined();
    expect(result.error).toMatch(/symbolic link/);
    expect(result.preview).toContain('could not be saved');
    expect(fs.readdirSync(elsewhere)).toHaveLength(80);
  });

  it('a symlinked cache folder is refused as well', () => {
    userFiles(3);
    fs.symlinkSync(elsewhere, path.join(home, 'cache'));
    expect(spill().error).toMatch(/symbolic link/);
    expect(fs.readdirSync(elsewhere).sort()).toEqual(['note-0.md', 'note-1.md', 'note-2.md']);
  });

  it('pruning keeps the newest 50 spill files and never touches other files or links', () => {
    const dir = spillDir(home);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'my-notes.md'), 'mine');
    userFiles(1);
    fs.symlinkSync(
      path.join(elsewhere, 'note-0.md'),
      path.join(dir, 'ext-2020-01-01T00-00-00-000Z-0badf00d.md'),
    );
    for (let i = 0; i < 60; i++) {
      const { file } = spill(i);
      fs.utimesSync(file!, new Date(1_700_000_000_000 + i * 1000), new Date(1_700_000_000_000 + i * 1000));
    }
    const names = fs.readdirSync(dir);
    expect(names).toContain('my-notes.md');
    expect(names).toContain('ext-2020-01-01T00-00-00-000Z-0badf00d.md');
    expect(names.filter((n) => n.startsWith('ext-2026'))).toHaveLength(50);
    expect(fs.readFileSync(path.join(elsewhere, 'note-0.md'), 'utf8')).toBe('user note 0');
  });
});
