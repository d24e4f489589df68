import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { linkedFilesCheck, sqliteFiles } from './index';

const dirs: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-core-checks-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('linkedFilesCheck', () => {
  it('is ok for regular and missing files, and warns with each link and its target (dangling too)', () => {
    const home = tempDir();
    const db = path.join(home, 'store.db');
    const check = () =>
      linkedFilesCheck({
        id: 'symlinks',
        title: 'Links',
        files: sqliteFiles(db),
        home,
        okDetail: 'no links',
      });
    expect(check()).toEqual({ id: 'symlinks', title: 'Links', status: 'ok', detail: 'no links' });
    fs.writeFileSync(db, '');
    expect(check().status).toBe('ok');
    fs.rmSync(db);
    fs.symlinkSync('/nowhere/else.db', db);
    fs.symlinkSync('/nowhere/else.db-wal', `${db}-wal`);
    const warned = check();
    expect(warned).toMatchObject({
      status: 'warn',
      detail: 'reached through a link: store.db → /nowhere/else.db, store.db-wal → /nowhere/else.db-wal',
    });
    expect(warned.fix).toMatch(/removes only the link/);
    expect(warned.repair).toBeUndefined();
  });
});
