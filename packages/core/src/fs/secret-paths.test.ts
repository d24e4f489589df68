import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { secretPathReason } from './secret-paths';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-secret-paths-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('secretPathReason', () => {
  it("refuses the Hermes home's credential store, .env and config", () => {
    for (const name of ['auth.json', '.env', 'config.yaml']) {
      expect(secretPathReason(path.join(dir, name), { hermesHome: dir })).toMatch(/credentials/);
    }
  });

  it('refuses key and credential files by name anywhere', () => {
    for (const name of [
      'id_ed25519',
      'id_rsa',
      'server.pem',
      'tls.key',
      '.env.local',
      '.netrc',
      'credentials',
      '.npmrc',
    ]) {
      expect(secretPathReason(path.join(dir, 'project', name)), name).not.toBeNull();
    }
  });

  it('refuses everything under ~/.ssh, ~/.aws and the other credential folders', () => {
    expect(secretPathReason('~/.ssh/known_hosts', { homeDir: dir })).toMatch(/~\/\.ssh/);
    expect(secretPathReason(path.join(dir, '.aws', 'config'), { homeDir: dir })).toMatch(/~\/\.aws/);
    expect(secretPathReason('/etc/shadow')).toMatch(/system credential/);
  });

  it('follows links: a harmless name pointing at a key is refused', () => {
    const key = path.join(dir, 'id_ed25519');
    fs.writeFileSync(key, 'PRIVATE');
    const link = path.join(dir, 'notes.txt');
    fs.symlinkSync(key, link);
    expect(secretPathReason(link)).toMatch(/link to/);
  });

  it('allows ordinary files', () => {
    for (const name of ['notes.md', 'report.json', 'keyboard.txt', 'environment.md', 'config.yaml']) {
      expect(
        secretPathReason(path.join(dir, 'docs', name), { hermesHome: path.join(dir, 'home') }),
        name,
      ).toBeNull();
    }
  });
});
