import { type ChildProcess, execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT, tempHome } from '../../test/helpers/temp';
import { ENTRY_DELIMITER, parseEntries } from './entries';
import { MemoryStore } from './memory-store';

// These tests drive the BUILT package from child processes (`turbo test` builds first).
const run = promisify(execFile);
const fixture = (name: string) => path.join(PACKAGE_ROOT, 'test', 'fixtures', name);

function waitForLine(child: ChildProcess, line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d) => {
      buf += String(d);
      if (buf.split('\n').includes(line)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`child exited (${code}) before "${line}"`)));
  });
}

describe('multi-process safety', () => {
  it('8 processes × 100 adds: all 800 entries present once, file parses', { timeout: 60_000 }, async () => {
    const home = tempHome();
    await Promise.all(
      Array.from({ length: 8 }, (_, w) =>
        run(process.execPath, [fixture('add-many.mjs'), home, String(w), '100']),
      ),
    );
    const raw = fs.readFileSync(path.join(home, 'memories', 'MEMORY.md'), 'utf8');
    const entries = parseEntries(raw);
    expect(entries).toHaveLength(800);
    expect(new Set(entries).size).toBe(800);
    for (let w = 0; w < 8; w++)
      for (let i = 0; i < 100; i++) expect(entries).toContain(`worker ${w} entry ${i}`);
    expect(raw).toBe(entries.join(ENTRY_DELIMITER));
    // Only the file and its persistent flock sidecar (as the Python agent keeps one): no temp files.
    expect(fs.readdirSync(path.join(home, 'memories')).sort()).toEqual(['MEMORY.md', 'MEMORY.md.lock']);
  });

  it('an external rewrite between our read and our replace survives, and so does our change', async () => {
    const home = tempHome();
    const s = new MemoryStore({ hermesHome: home }).load();
    await s.add('memory', 'alpha fact');
    // Another process rewrites the file (as a second session or an editor would) after our read.
    await run(process.execPath, [
      '-e',
      `require('fs').writeFileSync(process.argv[1], 'alpha fact\\n§\\nexternal fact')`,
      s.pathFor('memory'),
    ]);
    const r = await s.replace('memory', 'alpha', 'alpha fact, revised');
    expect(r.success).toBe(true);
    expect(fs.readFileSync(s.pathFor('memory'), 'utf8')).toBe('alpha fact, revised\n§\nexternal fact');
  });

  it('a replace waiting on another process’s lock merges that process’s write', {
    timeout: 30_000,
  }, async () => {
    const home = tempHome();
    const s = new MemoryStore({ hermesHome: home }).load();
    await s.add('memory', 'alpha fact');
    const file = s.pathFor('memory');
    const child = spawn(
      process.execPath,
      [fixture('hold-lock.mjs'), file, 'alpha fact\n§\nwritten under lock'],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    await waitForLine(child, 'locked');
    const pending = s.replace('memory', 'alpha', 'alpha fact v2');
    child.stdin!.write('go\n');
    const r = await pending;
    expect(r.success).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe('alpha fact v2\n§\nwritten under lock');
  });

  // 50 process starts: generous on a loaded machine; nothing here measures time.
  it('SIGKILL at 50 different moments never leaves a torn or uncommitted file', {
    timeout: 240_000,
  }, async () => {
    const home = tempHome();
    const side = path.join(home, 'committed.log');
    const file = path.join(home, 'memories', 'MEMORY.md');
    fs.writeFileSync(side, '');
    // Each round kills its own writer process. Spawning and loading the package dominates a round,
    // so the next writer is started (and waits, idle, for "go") while the current one runs: it
    // writes nothing until the previous writer is dead and its file verified.
    const spawnWriter = () => {
      const child = spawn(process.execPath, [fixture('crash-writer.mjs'), home, side], {
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      const lines: string[] = [];
      let stderr = '';
      let onLine: (() => void) | undefined;
      let buf = '';
      child.stdout!.on('data', (d) => {
        buf += String(d);
        const parts = buf.split('\n');
        buf = parts.pop()!;
        lines.push(...parts.filter(Boolean));
        onLine?.();
      });
      child.stderr!.on('data', (d) => {
        stderr += String(d);
      });
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      /** Resolves once `n` lines arrived; rejects if the writer exits first. */
      const lineCount = (n: number, onReached: () => void) =>
        new Promise<void>((resolve, reject) => {
          const check = () => {
            if (lines.length >= n) {
              onLine = undefined;
              onReached();
              resolve();
            }
          };
          onLine = check;
          child.once('exit', () => reject(new Error(`writer died: ${stderr}`)));
          check();
        });
      return { child, exited, lineCount };
    };
    let next = spawnWriter();
    for (let round = 0; round < 50; round++) {
      const writer = next;
      await writer.lineCount(1, () => {}); // "ready": loaded, nothing written
      next = spawnWriter();
      // Kill after a varying number of commits by this writer (1..3), at whatever phase the next
      // write is in. The writer reports each commit on stdout; no polling.
      const wanted = 1 + (round % 3);
      const killed = writer.lineCount(1 + wanted, () => writer.child.kill('SIGKILL'));
      writer.child.stdin!.write('go\n');
      await killed;
      await writer.exited;
      const logged = fs.readFileSync(side, 'utf8').split('\n').filter(Boolean).map(Number);
      const last = logged[logged.length - 1]!;
      const raw = fs.readFileSync(file, 'utf8');
      const entries = parseEntries(raw);
      expect(raw).toBe(entries.join(ENTRY_DELIMITER));
      const state = (n: number) => Array.from({ length: n + 1 }, (_, i) => `crash entry ${i}`);
      const ok =
        JSON.stringify(entries) === JSON.stringify(state(last)) ||
        JSON.stringify(entries) === JSON.stringify(state(last + 1));
      expect(ok, `round ${round}: file has ${entries.length} entries, last logged ${last}`).toBe(true);
      // Re-align the log with what is on disk (the next-to-be-committed write may have landed).
      if (entries.length === last + 2) fs.appendFileSync(side, `${last + 1}\n`);
    }
    // The spare writer never started: closing its stdin makes it exit without writing.
    next.child.stdin!.end();
    await next.exited;
    expect(parseEntries(fs.readFileSync(file, 'utf8')).length).toBeGreaterThanOrEqual(50);
  });
});
