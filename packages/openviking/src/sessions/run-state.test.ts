import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { collectLogs, tempHermesHome } from '@hermes-memory/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { OpenvikingClient } from '../client';
import { startFakeOpenviking } from '../testing';
import { listMarkers, writeMarker } from './markers';
import { recoverOrphanedSessions } from './recovery';
import { RunLock, runState, runsDir, type TryFlock } from './run-lock';

// Where flock is unavailable (Windows, koffi not loadable) core's tryHoldFlock answers
// `unsupported`; this stands in for it, counting the probes so a test shows the fallback was reached.
let probes = 0;
const noFlock: TryFlock = async () => {
  probes++;
  return { held: false, reason: 'unsupported' };
};

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
  probes = 0;
});

function home(): string {
  const h = tempHermesHome('hm-ov-run-state-');
  cleanup.push(() => h.cleanup());
  fs.mkdirSync(runsDir(h.path), { recursive: true });
  return h.path;
}

/** The pid of a process that has certainly exited. */
function deadPid(): number {
  return Number(
    execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).toString(),
  );
}

/** A run's lock file as this package writes it (`{pid, host, run_id, started_at}`), or raw text. */
function lockFile(h: string, runId: string, content: { pid: number; host: string } | string): void {
  const text =
    typeof content === 'string' ? content : JSON.stringify({ ...content, run_id: runId, started_at: 0 });
  fs.writeFileSync(path.join(runsDir(h), `${runId}.lock`), text, { mode: 0o600 });
}

describe('run locks without flock (decision 0980: the pid rules)', () => {
  it('§4.9.15 a live pid is alive, a dead pid or a missing file dead, another host alive, an empty or garbled file unknown', async () => {
    const h = home();
    const mine = new RunLock(h, 'mine', noFlock);
    expect(mine.acquire()).toBe(true);
    await mine.whenLocked();
    expect(await runState(h, 'mine', noFlock)).toBe('alive'); // its pid file, nothing else, says so
    mine.release();
    expect(await runState(h, 'mine', noFlock)).toBe('dead');

    const dead = deadPid();
    lockFile(h, 'crashed', { pid: dead, host: os.hostname() });
    expect(await runState(h, 'crashed', noFlock)).toBe('dead');
    lockFile(h, 'remote', { pid: dead, host: 'another-host' });
    expect(await runState(h, 'remote', noFlock)).toBe('alive'); // its pid means nothing here
    lockFile(h, 'empty', ''); // the Python agent's run lock: nothing written in it
    lockFile(h, 'garbled', '{"pid":');
    lockFile(h, 'no-pid', '{"run_id":"no-pid"}');
    for (const runId of ['empty', 'garbled', 'no-pid'])
      expect(await runState(h, runId, noFlock)).toBe('unknown');
    expect(probes).toBe(6); // every judgement of a local file asked flock first and fell back

    // With flock the empty file is judged by its free lock instead: the seam is what changed the rule.
    expect(await runState(h, 'empty')).toBe('dead');
  });

  it('§4.9.15 recovery commits the session of a dead pid only; a live pid and an unreadable file keep theirs', async () => {
    const h = home();
    const backend = await startFakeOpenviking();
    cleanup.push(() => backend.close());
    lockFile(h, 'live-run', { pid: process.pid, host: os.hostname() });
    lockFile(h, 'dead-run', { pid: deadPid(), host: os.hostname() });
    lockFile(h, 'empty-run', '');
    for (const [sid, owner] of [
      ['live-s', 'live-run'],
      ['dead-s', 'dead-run'],
      ['empty-s', 'empty-run'],
    ] as const) {
      writeMarker(h, sid, owner);
      backend.state.sessions[sid] = {
        id: sid,
        messages: [{ role: 'user', parts: [{ type: 'text', text: `a turn of ${sid}` }] }],
        archived: 0,
        commits: 0,
      };
    }
    const client = new OpenvikingClient({
      endpoint: backend.url,
      apiKey: '',
      account: '',
      user: '',
      agent: '',
      timeoutMs: 2000,
      version: '0.0.0-test',
    });
    const logs = collectLogs();
    const report = await recoverOrphanedSessions({
      hermesHome: h,
      runId: 'recovering-run',
      client,
      logger: logs.logger,
      tryFlock: noFlock,
    });

    expect(report.committed).toEqual(['dead-s']);
    expect(report.kept.sort()).toEqual(['empty-s', 'live-s']);
    const committed = backend
      .requestsTo('POST /api/v1/sessions/:sid/commit')
      .map((q) => q.params.sid)
      .sort();
    expect(committed).toEqual(['dead-s']);
    expect(
      listMarkers(h)
        .map((m) => `${m.session_id}:${m.owner_run_id}`)
        .sort(),
    ).toEqual(['empty-s:empty-run', 'live-s:live-run']); // untouched: not even claimed
    expect(fs.readdirSync(runsDir(h)).sort()).toEqual(['empty-run.lock', 'live-run.lock']);
    expect(probes).toBeGreaterThan(0);
  });
});
