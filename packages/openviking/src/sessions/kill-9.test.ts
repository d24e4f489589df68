import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  type ChildWorker,
  collectLogs,
  requirePython,
  startChildWorker,
  stdoutLines,
  tempHermesHome,
} from '@hermes-memory/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenvikingProvider } from '../index';
import { initContext } from '../test-support/rig';
import { startFakeOpenviking } from '../testing';
import { listMarkers, markerFile, markersDir, writeMarker } from './markers';
import { type RunLock, runState, runsDir } from './run-lock';

/** The Python agent's probe of a run lock: fcntl.flock(LOCK_EX | LOCK_NB) on its own open file. */
const PYTHON_PROBE = `import fcntl,sys
f=open(sys.argv[1],'a+')
try:
  fcntl.flock(f,fcntl.LOCK_EX|fcntl.LOCK_NB); print('free')
except BlockingIOError: print('busy')`;

/** A Python process holding `file`'s flock as the reference's run does, until it is killed. */
function spawnHolder(file: string) {
  requirePython();
  const code = `import fcntl,sys,time
f=open(sys.argv[1],'a+')
fcntl.flock(f,fcntl.LOCK_EX)
print('locked',flush=True)
sys.stdin.readline()`;
  const child = spawn('python3', ['-c', code, file], { stdio: ['pipe', 'pipe', 'inherit'] });
  cleanup.push(() => child.kill('SIGKILL'));
  return { child, lines: stdoutLines(child) };
}

const WORKER = new URL('../test-support/session-worker.ts', import.meta.url).pathname;
const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function setup() {
  const backend = await startFakeOpenviking();
  const home = tempHermesHome('hm-ov-kill9-');
  cleanup.push(
    () => backend.close(),
    () => home.cleanup(),
  );
  const child = (sessionId: string): ChildWorker => {
    const worker = startChildWorker(WORKER, {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, FAKE_URL: backend.url, HOME_DIR: home.path, SESSION_ID: sessionId },
    });
    cleanup.push(() => worker.kill());
    return worker;
  };
  const next = async () => {
    const logs = collectLogs();
    const provider = createOpenvikingProvider({ endpoint: backend.url, autoStart: false });
    await provider.initialize('fresh', initContext(home.path, logs));
    cleanup.push(() => provider.shutdown({ timeoutMs: 1000 }));
    await provider.idle();
    return { provider, logs };
  };
  return { backend, home: home.path, child, next };
}

const commitsOf = (backend: Awaited<ReturnType<typeof setup>>['backend'], sid: string) =>
  backend.requestsTo('POST /api/v1/sessions/:sid/commit').filter((q) => q.params.sid === sid).length;

describe('crash recovery', () => {
  it('§4.9.15 a session orphaned by kill -9 is committed by the next start; a live run keeps its session', async () => {
    const { backend, home, child, next } = await setup();
    const crashed = child('crashed-1');
    const alive = child('alive-1');
    await crashed.waitForLines(1, (l) => l.startsWith('ack '));
    await alive.waitForLines(1, (l) => l.startsWith('ack '));
    const crashedRun = crashed.lines[0]!.split(' ')[2]!;
    expect(
      listMarkers(home)
        .map((m) => m.session_id)
        .sort(),
    ).toEqual(['alive-1', 'crashed-1']);
    await crashed.kill('SIGKILL');
    expect(await runState(home, crashedRun)).toBe('dead');
    expect(commitsOf(backend, 'crashed-1')).toBe(0);

    const { logs } = await next();
    expect(commitsOf(backend, 'crashed-1')).toBe(1);
    expect(commitsOf(backend, 'alive-1')).toBe(0);
    expect(backend.state.sessions['crashed-1']!.archived).toBe(2);
    expect(
      Object.values(backend.state.nodes).some((n) => n.content.includes('worth keeping in crashed-1')),
    ).toBe(true);
    expect(fs.existsSync(markerFile(home, 'crashed-1'))).toBe(false);
    expect(fs.existsSync(markerFile(home, 'alive-1'))).toBe(true);
    expect(fs.existsSync(path.join(runsDir(home), `${crashedRun}.lock`))).toBe(false);
    expect(logs.contains('committed 1 session(s) a previous run left pending')).toBe(true);
  }, 30_000);

  it('§4.9.15 a marker the server no longer knows (404) is dropped; owner-less legacy markers are recovered too', async () => {
    const { backend, home, next } = await setup();
    fs.mkdirSync(markersDir(home), { recursive: true });
    fs.writeFileSync(
      markerFile(home, 'gone'),
      JSON.stringify({ session_id: 'gone', owner_run_id: 'dead-run-1' }),
    );
    fs.writeFileSync(markerFile(home, 'legacy'), JSON.stringify({ session_id: 'legacy' }));
    backend.state.sessions.legacy = {
      id: 'legacy',
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'left by an older version' }] }],
      archived: 0,
      commits: 0,
    };
    await next();
    expect(listMarkers(home)).toEqual([]);
    expect(commitsOf(backend, 'legacy')).toBe(1);
    expect(
      backend.requestsTo('POST /api/v1/sessions/:sid/commit').find((q) => q.params.sid === 'gone')!.status,
    ).toBe(404);
    expect(fs.existsSync(path.join(runsDir(home), 'legacy-recovery.lock'))).toBe(false);
  });

  it('§4.9.15 a Python run holding its flock keeps its session; once it is gone the session is recovered', async () => {
    const { home, next, backend } = await setup();
    fs.mkdirSync(runsDir(home), { recursive: true });
    const pyLock = path.join(runsDir(home), 'python-run.lock');
    // The reference's run lock: the file opened "a+" and flocked for the run; nothing written in it.
    const python = spawnHolder(pyLock);
    expect(await python.lines.next()).toBe('locked');
    writeMarker(home, 'py-session', 'python-run');
    backend.state.sessions['py-session'] = {
      id: 'py-session',
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'written by the Python agent' }] }],
      archived: 0,
      commits: 0,
    };
    expect(await runState(home, 'python-run')).toBe('alive');
    await next();
    expect(commitsOf(backend, 'py-session')).toBe(0);
    expect(fs.existsSync(markerFile(home, 'py-session'))).toBe(true);

    python.child.kill('SIGKILL'); // a crash: the kernel drops the flock, the empty file stays
    await new Promise((resolve) => python.child.once('close', resolve));
    expect(fs.existsSync(pyLock)).toBe(true);
    expect(await runState(home, 'python-run')).toBe('dead');
    await next();
    expect(commitsOf(backend, 'py-session')).toBe(1);
    expect(fs.existsSync(markerFile(home, 'py-session'))).toBe(false);
  }, 30_000);

  it('§4.9.15 our run lock is a flock the Python agent sees held while we run, and free after', async () => {
    const { next } = await setup();
    const { provider } = await next();
    const lock = provider['runLock'] as RunLock;
    await lock.whenLocked();
    const probe = (file: string) => execFileSync('python3', ['-c', PYTHON_PROBE, file]).toString().trim();
    expect(probe(lock.file)).toBe('busy');
    expect(JSON.parse(fs.readFileSync(lock.file, 'utf8')).pid).toBe(process.pid);
    await provider.shutdown({ timeoutMs: 1000 });
    expect(fs.existsSync(lock.file)).toBe(false);
  }, 30_000);
});
