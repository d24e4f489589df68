import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withFileLock } from '@hermes-memory/builtin';
import Database from 'better-sqlite3';
import { runUnderWriteLimit, tmpfsMountPrefix, type WriteLimitKind } from '@hermes-memory/testkit';
import { describe, expect, it } from 'vitest';
import { checkLocks } from '../src/doctor/checks';
import { BIN, expectOneLineError, run, runInProcess, useTempHomes } from './helpers';

// §12 (red team): doctor --fix removed a lock a live writer held; read-only commands created files
// in a fresh home; --home "" meant ~/.hermes and --home /proc/self spun forever; export --out wrote
// through a link planted at its predictable temp name and lost data on a full disk; import failed
// with "database is locked" while an agent was writing.

const home = useTempHomes();
const script = (name: string) => path.resolve(__dirname, 'scripts', name);

function outside(): { dir: string; file: string } {
  const dir = home();
  const file = path.join(dir, 'precious.txt');
  fs.writeFileSync(file, 'not memory');
  return { dir, file };
}

describe('doctor and locks (§12)', () => {
  it('--fix never removes a fallback lock that a live writer took after the check', async () => {
    const h = home();
    const dir = path.join(h, 'memories');
    fs.mkdirSync(dir);
    const lock = path.join(dir, 'MEMORY.md.lock.excl');
    fs.writeFileSync(
      lock,
      JSON.stringify({ pid: 2 ** 22 + 12345, host: os.hostname(), ts: 0, token: 'gone' }),
    );
    const check = checkLocks(h);
    expect(check.status).toBe('fail');
    expect(check.detail).toContain('MEMORY.md.lock.excl');
    // A writer breaks the abandoned lock and takes it (a live pid, a new token); doctor's repair
    // runs while it is inside and must leave it.
    const taken = JSON.stringify({ pid: process.pid, host: os.hostname(), ts: Date.now(), token: 'live' });
    fs.rmSync(lock);
    fs.writeFileSync(lock, taken);
    expect(check.repair!()).toBe('removed 0 stale file(s)');
    expect(fs.readFileSync(lock, 'utf8')).toBe(taken);
  });

  it('--fix leaves the flock sidecar alone while a writer holds it', async () => {
    const h = home();
    expect(run(h, ['memory', 'add', 'A note']).code).toBe(0);
    const lock = path.join(h, 'memories', 'MEMORY.md.lock');
    await withFileLock(lock, () => {
      const fixed = run(h, ['doctor', '--fix']);
      expect(fixed.code).toBe(0);
      expect(fs.existsSync(lock)).toBe(true);
    });
    expect(fs.existsSync(lock)).toBe(true); // persistent, as the Python agent's
  });

  it.skipIf(!canMakeImmutable())(
    'after --fix, a repair that failed does not end with "Run with --fix"',
    () => {
      const h = home();
      expect(run(h, ['memory', 'add', 'A note']).code).toBe(0);
      const file = path.join(h, 'memories', 'MEMORY.md');
      fs.chmodSync(file, 0o644);
      spawnSync('chattr', ['+i', file]); // even root cannot chmod it now
      try {
        const r = run(h, ['doctor', '--fix']);
        expect(r.code).toBe(1);
        expect(r.stdout).toMatch(/File permissions \(0600\): .* repair failed: EPERM/);
        expect(r.stdout).toMatch(/\d+ problems? found\.\n$/);
      } finally {
        spawnSync('chattr', ['-i', file]);
      }
    },
  );

  it('reports symbolic links it refuses, and --fix leaves them (and their targets) alone', () => {
    const h = home();
    const { file } = outside();
    expect(run(h, ['memory', 'add', 'A note']).code).toBe(0);
    fs.symlinkSync(file, path.join(h, 'memories', 'USER.md'));
    fs.symlinkSync(file, path.join(h, 'memories', 'MEMORY.md.bak.1767261600'));
    const r = run(h, ['doctor', '--json']);
    expect(r.code).toBe(1);
    const check = JSON.parse(r.stdout).checks.find((c: { id: string }) => c.id === 'symlinks');
    expect(check.status).toBe('fail');
    expect(check.detail).toContain(`memories/USER.md → ${file}`);
    expect(check.detail).toContain('memories/MEMORY.md.bak.1767261600');
    expect(check.fix).toMatch(/removes only the link/);
    expect(run(h, ['doctor', '--fix']).code).toBe(1);
    expect(fs.lstatSync(path.join(h, 'memories', 'USER.md')).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe('not memory');
  });
});

describe('homes (§12)', () => {
  it('read-only commands create nothing in a fresh home', () => {
    const fresh = path.join(home(), 'not-yet');
    for (const args of [
      ['memory', 'list'],
      ['memory', 'pending'],
      ['status'],
      ['sessions', 'list'],
      ['sessions', 'search', 'tuesdays'],
      ['facts', 'list'],
      ['facts', 'search', 'tuesdays'],
      ['export'],
      ['doctor'],
    ]) {
      const r = run(fresh, args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(fs.existsSync(fresh), args.join(' ')).toBe(false);
    }
    const empty = home();
    for (const args of [['memory', 'list'], ['status'], ['sessions', 'list'], ['export']]) run(empty, args);
    expect(fs.readdirSync(empty)).toEqual([]);
  });

  it("sessions list, search and show leave a Python agent's state.db as it was", () => {
    // Before: they opened it for writing, so listing switched the journal mode, added a second
    // search index and chmodded the file, and in a read-only home failed with "attempt to write a
    // readonly database".
    const h = home();
    const file = path.join(h, 'state.db');
    const db = new Database(file);
    db.exec(PYTHON_V6_STATE_DB);
    db.close();
    fs.chmodSync(file, 0o644);
    const before = fs.readFileSync(file);
    const list = run(h, ['sessions', 'list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout).sessions.map((s: { id: string }) => s.id)).toEqual([
      '20260301_101500_a1b2c3',
    ]);
    const search = run(h, ['sessions', 'search', 'nginx', '--json']);
    expect(JSON.parse(search.stdout).count).toBe(1);
    const show = run(h, ['sessions', 'show', 'Nginx setup', '--json']);
    expect(JSON.parse(show.stdout).messages).toHaveLength(2);
    expect(fs.readdirSync(h).sort()).toEqual(['state.db']);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect(fs.statSync(file).mode & 0o777).toBe(0o644);
  });

  it("looking at a Python home mounted read-only: sessions on a pre-v6 state.db, holographic on the plugin's store", () => {
    // Before: sessions migrated a state.db older than v6 first (and failed in a read-only home);
    // holographic list/search added their side index ("attempt to write a readonly database").
    const prefix = tmpfsMountPrefix();
    const h = home();
    const state = path.join(h, 'state.db');
    const db = new Database(state);
    db.exec(PYTHON_V6_STATE_DB);
    db.exec(`ALTER TABLE messages DROP COLUMN reasoning; ALTER TABLE messages DROP COLUMN reasoning_details;
      ALTER TABLE messages DROP COLUMN codex_reasoning_items; UPDATE schema_version SET version = 5;`);
    db.close();
    const facts = path.join(h, 'memory_store.db');
    fs.copyFileSync(path.resolve(__dirname, '../../holographic/test/fixtures/older-float64-store.db'), facts);
    const before = [fs.readFileSync(state), fs.readFileSync(facts)];
    // Without a private mount namespace the home stays writable: the byte-for-byte checks still hold.
    if (!prefix) console.warn('no private mount namespace here: the home is not mounted read-only');
    const look = (args: string[]) => {
      const r = spawnSync(
        prefix?.[0] ?? 'sh',
        [
          ...(prefix?.slice(1) ?? []),
          ...(prefix ? ['sh'] : []),
          '-c',
          prefix
            ? 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"'
            : 'shift && exec "$@"',
          'sh',
          h,
          process.execPath,
          BIN,
          '--home',
          h,
          ...args,
          '--json',
        ],
        { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' }, timeout: 30_000 },
      );
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      return JSON.parse(r.stdout);
    };
    if (prefix) {
      // The mount really is read-only: a write through it fails.
      const probe = spawnSync(prefix[0]!, [
        ...prefix.slice(1),
        'sh',
        '-c',
        'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && touch "$1/x"',
        'sh',
        h,
      ]);
      expect(probe.status).not.toBe(0);
    }
    expect(look(['sessions', 'list']).sessions.map((s: { id: string }) => s.id)).toEqual([
      '20260301_101500_a1b2c3',
    ]);
    expect(look(['sessions', 'search', 'nginx']).count).toBe(1);
    expect(look(['sessions', 'show', 'Nginx setup']).messages).toHaveLength(2);
    expect(look(['holographic', 'list']).count).toBe(8);
    expect(look(['holographic', 'search', 'blue-green rollback']).results[0].fact_id).toBe(2);
    expect(fs.readdirSync(h).sort()).toEqual(['memory_store.db', 'state.db']);
    expect(fs.readFileSync(state).equals(before[0]!)).toBe(true);
    expect(fs.readFileSync(facts).equals(before[1]!)).toBe(true);
  });

  it('sessions commands name the file and the cause when state.db cannot be read', () => {
    const h = home();
    fs.writeFileSync(path.join(h, 'state.db'), 'not a database, just text '.repeat(64));
    for (const args of [
      ['sessions', 'list'],
      ['sessions', 'search', 'nginx'],
      ['sessions', 'show', 'x'],
    ]) {
      const r = run(h, args);
      expectOneLineError(r);
      expect(r.stderr).toContain(`Cannot read ${path.join(h, 'state.db')}: file is not a database.`);
    }
  });

  it('a home that is a file is one clear error for every command; doctor reports it as a check', () => {
    // Before: "Cannot read <file>/config.yaml: ENOTDIR …", or "No sessions recorded yet." (exit 0).
    const file = path.join(home(), 'not-a-dir');
    fs.writeFileSync(file, 'x');
    for (const args of [
      ['status'],
      ['memory', 'list'],
      ['sessions', 'list'],
      ['export'],
      ['mcp'],
      ['holographic', 'list'],
    ]) {
      const r = run(file, args);
      expectOneLineError(r);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toBe(
        `hermes-memory: HERMES_HOME ${file} is not a directory. Point --home or HERMES_HOME at a directory.\n`,
      );
    }
    const doctor = run(file, ['doctor']);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(`HERMES_HOME: ${file} is not a directory`);
    expect(fs.readFileSync(file, 'utf8')).toBe('x');
  });

  it('--home "" is an error, not ~/.hermes; --home /proc/self fails at once instead of spinning', () => {
    for (const args of [
      ['--home', '', 'memory', 'list'],
      ['--home=', 'status'],
      ['--home', '  ', 'status'],
    ]) {
      const r = run(home(), args); // run() passes its own --home first; the later one wins
      expectOneLineError(r);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--home' needs a directory/);
    }
    if (process.platform !== 'linux') return;
    const add = run('/proc/self', ['memory', 'add', 'x']);
    expectOneLineError(add);
    expect(add.stderr).toMatch(/Could not create the folder \/proc\/self\/memories/);
    expect(run('/proc/self', ['memory', 'list']).code).toBe(0);
  });
});

describe('export --out (§12)', () => {
  it('never writes through a link planted at the old predictable temp name, nor through a linked target', async () => {
    const h = home();
    expect(run(h, ['memory', 'add', 'Deploys on Tuesdays']).code).toBe(0);
    const { dir, file } = outside();
    const out = path.join(dir, 'export.jsonl');
    fs.symlinkSync(file, `${out}.tmp-${process.pid}`);
    // In this process, so the planted link's name has the pid the export will use.
    const r = await runInProcess(['--home', h, 'export', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe('not memory');
    expect(fs.readFileSync(out, 'utf8')).toContain('Deploys on Tuesdays');
    expect(fs.statSync(out).mode & 0o777).toBe(0o600);
    const linked = path.join(dir, 'linked.jsonl');
    fs.symlinkSync(file, linked);
    const refused = run(h, ['export', '--out', linked]);
    expectOneLineError(refused);
    expect(refused.stderr).toMatch(/symbolic link/);
    expect(fs.readFileSync(file, 'utf8')).toBe('not memory');
  });

  it.each<WriteLimitKind>(['full-disk', 'file-size'])(
    'fails cleanly under %s and keeps the earlier export',
    {
      timeout: 60_000,
    },
    async (kind) => {
      const run = await runUnderWriteLimit(kind, {
        script: script('limited-export.mjs'),
        // The export is ~90 KB. Reading state.db needs SQLite's 32 KiB shared-memory file, so a
        // filled tmpfs keeps 64 KiB free and the file-size limit is 48 KiB: room to read, not to export.
        bytes: kind === 'full-disk' ? 8 * 1024 * 1024 : 48 * 1024,
        slackBytes: 64 * 1024,
      });
      if (run.fellBackFrom) console.warn(`no tmpfs here: ${kind} ran under a ${run.kind} limit instead`);
      const { act, check } = run.phases;
      expect(act, run.stderr).toBeDefined();
      expect(act!.code).toBe(1);
      expect(String(act!.stderr)).toMatch(
        run.kind === 'full-disk' ? /ENOSPC|SHORT_WRITE/ : /EFBIG|SHORT_WRITE/,
      );
      expect(String(act!.stderr)).toMatch(/the file on disk is unchanged/);
      expect(check).toMatchObject({ intact: true, leftovers: [] });
    },
  );
});

describe('import under concurrent agent writes (§12)', () => {
  it('waits for an agent holding the write lock longer than the busy timeout instead of "database is locked"', {
    timeout: 90_000,
  }, async () => {
    const a = home();
    expect(run(a, ['memory', 'add', 'Deploys on Tuesdays']).code).toBe(0);
    // A session row, so the export has state.db rows to import.
    const { SessionStore } = await import('@hermes-memory/builtin');
    const s = new SessionStore({ hermesHome: a });
    s.createSession('20260101_100000_aaaaaa', { source: 'cli' });
    s.appendMessage('20260101_100000_aaaaaa', { role: 'user', content: 'hello' });
    s.close();
    const exported = path.join(a, 'export.jsonl');
    expect(run(a, ['export', '--out', exported]).code).toBe(0);
    const b = home();
    new SessionStore({ hermesHome: b }).close();
    // An "agent" holds state.db's write lock for 6.5 s, past SQLite's 5 s busy timeout.
    const holder = spawn(process.execPath, [script('hold-db-lock.mjs'), path.join(b, 'state.db'), '6500'], {
      cwd: path.resolve(__dirname, '..'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      holder.stdout!.once('data', () => resolve());
      holder.once('exit', (code) => reject(new Error(`holder exited ${code}`)));
    });
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        [path.resolve(__dirname, '../dist/bin.js'), '--home', b, 'import', exported],
        {
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let stderr = '';
      child.stderr!.on('data', (d) => {
        stderr += String(d);
      });
      child.once('exit', (code) => resolve({ code, stderr }));
    });
    expect(r.stderr).not.toMatch(/locked/);
    expect(r.code).toBe(0);
    expect(JSON.parse(run(b, ['sessions', 'list', '--json']).stdout).sessions).toHaveLength(1);
  });
});

/** state.db as the Python agent leaves it at the classic schema v6 (hermes-core spec §8), one session. */
const PYTHON_V6_STATE_DB = `
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE sessions (
  id TEXT PRIMARY KEY, source TEXT NOT NULL, user_id TEXT, model TEXT, model_config TEXT, system_prompt TEXT,
  parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL, end_reason TEXT,
  message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0, input_tokens INTEGER DEFAULT 0,
  output_tokens INTEGER DEFAULT 0, cache_read_tokens INTEGER DEFAULT 0, cache_write_tokens INTEGER DEFAULT 0,
  reasoning_tokens INTEGER DEFAULT 0, billing_provider TEXT, billing_base_url TEXT, billing_mode TEXT,
  estimated_cost_usd REAL, actual_cost_usd REAL, cost_status TEXT, cost_source TEXT, pricing_version TEXT,
  title TEXT, FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
);
CREATE TABLE messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL,
  content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL,
  token_count INTEGER, finish_reason TEXT, reasoning TEXT, reasoning_details TEXT, codex_reasoning_items TEXT
);
CREATE UNIQUE INDEX idx_sessions_title_unique ON sessions(title) WHERE title IS NOT NULL;
CREATE VIRTUAL TABLE messages_fts USING fts5(content, content=messages, content_rowid=id);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
INSERT INTO schema_version VALUES (6);
INSERT INTO sessions (id, source, model, started_at, ended_at, end_reason, message_count, title)
  VALUES ('20260301_101500_a1b2c3', 'cli', 'hermes-3', 1772360100.25, 1772360500.5, 'cli_close', 2, 'Nginx setup');
INSERT INTO messages (session_id, role, content, timestamp) VALUES
  ('20260301_101500_a1b2c3', 'user', 'Help me configure nginx reverse proxy for grafana', 1772360101.0),
  ('20260301_101500_a1b2c3', 'assistant', 'Done: proxy_pass to http://127.0.0.1:3000', 1772360103.0);
`;

/** Whether `chattr +i` works here (an ext4-like file system and the right to set the flag). */
function canMakeImmutable(): boolean {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-cli-chattr-'));
  const file = path.join(dir, 'probe');
  fs.writeFileSync(file, '');
  try {
    return spawnSync('chattr', ['+i', file]).status === 0 && spawnSync('chattr', ['-i', file]).status === 0;
  } catch {
    return false;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
