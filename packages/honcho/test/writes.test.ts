import fs from 'node:fs';
import path from 'node:path';
import { LockTimeoutError, ManualClock } from '@hermes-memory/core';
import { spawnPython, stdoutLines } from '@hermes-memory/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { chunkMessage } from '../src/index';
import { LEDGER_FILE, migrateMemoryFiles } from '../src/session/migration';
import { type Rig, startRig, WORKSPACE } from './harness';

let rig: Rig;
afterEach(async () => rig?.close());

const tick = () => new Promise((resolve) => setImmediate(resolve));
async function until(condition: () => boolean, rounds = 500): Promise<void> {
  for (let i = 0; i < rounds && !condition(); i++) await tick();
  expect(condition()).toBe(true);
}
const stored = () => rig.fake.messages(WORKSPACE, 'demo').map((m) => m.content);

describe('honcho writes', () => {
  it('§2.7.23 sync_turn splits a 60 000-character message (limit 25 000) into 3 chunks, the 2nd and 3rd starting "[continued] "', async () => {
    const sentence = 'The parser keeps a stack of open scopes. ';
    const long = sentence.repeat(Math.ceil(60_000 / sentence.length)).slice(0, 60_000);
    const chunks = chunkMessage(long, 25_000);
    expect(chunks).toHaveLength(3);
    expect(chunks.every((c) => c.length <= 25_000)).toBe(true);
    expect(chunks[0]!.startsWith('[continued] ')).toBe(false);
    expect(chunks[1]!.startsWith('[continued] ')).toBe(true);
    expect(chunks[2]!.startsWith('[continued] ')).toBe(true);
    expect(chunks[0]!.endsWith('.')).toBe(true); // cut at a sentence

    rig = await startRig();
    const provider = rig.provider({ writeFrequency: 'turn' });
    await rig.init(provider);
    await provider.syncTurn(long, 'Summarised.');
    const user = rig.fake.messages(WORKSPACE, 'demo').filter((m) => m.peer_id === 'alice');
    expect(user).toHaveLength(3); // the fake refuses anything over 25 000, like Honcho cloud
    expect(user[1]!.content.startsWith('[continued] ')).toBe(true);
  });

  it('§2.7.24 async retries a failed flush once after 2 s then drops it; "turn" flushes synchronously; N flushes every Nth save', async () => {
    const clock = new ManualClock();
    rig = await startRig({ clock });
    const asyncProvider = rig.provider({ writeFrequency: 'async' });
    await rig.init(asyncProvider);
    const posts = () => rig.fake.requestsTo('POST /v3/workspaces/:workspace/sessions/:session/messages');
    rig.fake.fail({ type: 'status', status: 500, count: 2, path: '/messages' });
    await asyncProvider.syncTurn('first try', 'ack');
    await until(() => posts().length === 1 && asyncProvider.pendingWork > 0);
    await clock.advance(1_999);
    expect(posts()).toHaveLength(1);
    await clock.advance(1);
    await until(() => posts().length === 2);
    await asyncProvider.idle();
    expect(posts()).toHaveLength(2); // dropped after the retry
    expect(stored()).toEqual([]);
    rig.fake.fail({ type: 'status', status: 500, count: 1, path: '/messages' });
    await asyncProvider.syncTurn('second try', 'ack');
    await until(() => posts().length === 3);
    await clock.advance(2_000);
    await until(() => stored().length === 2);
    expect(stored()).toEqual(['second try', 'ack']);
    await rig.close();

    rig = await startRig();
    const turn = rig.provider({ writeFrequency: 'turn' });
    await rig.init(turn);
    await turn.syncTurn('synchronous', 'yes');
    expect(stored()).toEqual(['synchronous', 'yes']);

    const every3 = rig.provider({ writeFrequency: '3' });
    await rig.init(every3, 's2');
    await every3.syncTurn('one', 'a');
    await every3.syncTurn('two', 'b');
    expect(stored()).toHaveLength(2);
    await every3.syncTurn('three', 'c');
    expect(stored()).toEqual(['synchronous', 'yes', 'one', 'a', 'two', 'b', 'three', 'c']);

    const session = rig.provider({ writeFrequency: 'session' });
    await rig.init(session, 's3');
    await session.syncTurn('held', 'until the end');
    expect(stored()).toHaveLength(8);
    await session.onSessionEnd([]);
    expect(stored().slice(-2)).toEqual(['held', 'until the end']);
  });

  it('§2.7.29 on_memory_write(add, user) creates a conclusion; replace, remove and target "memory" are ignored', async () => {
    rig = await startRig();
    const provider = rig.provider();
    await rig.init(provider);
    await provider.idle();
    provider.onMemoryWrite('add', 'user', 'Alice is vegetarian.');
    provider.onMemoryWrite('replace', 'user', 'Alice eats fish.');
    provider.onMemoryWrite('remove', 'user', 'Alice is vegetarian.');
    provider.onMemoryWrite('add', 'memory', 'The repo uses pnpm.');
    await provider.idle();
    const conclusions = rig.fake.state.workspaces[WORKSPACE]!.conclusions;
    expect(conclusions.map((c) => [c.content, c.observer_id, c.observed_id])).toEqual([
      ['Alice is vegetarian.', 'hermes', 'alice'],
    ]);
  });

  it('§2.7.30 memory files migrate once per target, not again after a restart (ledger), and never under per-session', async () => {
    rig = await startRig();
    fs.mkdirSync(path.join(rig.home.path, 'memories'), { recursive: true });
    fs.writeFileSync(
      path.join(rig.home.path, 'memories', 'MEMORY.md'),
      'Project uses pnpm.\n§\nDeploys on Fridays.\n',
    );
    fs.writeFileSync(path.join(rig.home.path, 'memories', 'USER.md'), 'Alice prefers short answers.\n');
    fs.writeFileSync(path.join(rig.home.path, 'SOUL.md'), 'You are Hermes, calm and precise.\n');
    const uploads = () =>
      rig.fake.requestsTo('POST /v3/workspaces/:workspace/sessions/:session/messages/upload');

    const perSession = rig.provider({ sessionStrategy: 'per-session' });
    await rig.init(perSession, 'ps-1');
    await perSession.idle();
    expect(uploads()).toHaveLength(0);

    const first = rig.provider();
    await rig.init(first);
    await first.idle();
    await until(() => uploads().length === 3);
    const peers = uploads().map((r) => String(r.rawBody.match(/name="peer_id"\r\n\r\n([^\r]+)/)?.[1]));
    expect(peers.sort()).toEqual(['alice', 'alice', 'hermes']);
    const ledger = path.join(rig.home.path, LEDGER_FILE);
    expect(fs.statSync(ledger).mode & 0o777).toBe(0o600);
    expect(Object.keys(JSON.parse(fs.readFileSync(ledger, 'utf8')).uploaded).sort()).toEqual([
      'hermes/alice/consolidated_memory.md',
      'hermes/alice/user_profile.md',
      'hermes/hermes/agent_soul.md',
    ]);
    await first.shutdown();

    // A restart into a new, empty session (another directory): the ledger stops a second upload.
    const restarted = rig.provider({}, { cwd: '/srv/projects/other' });
    await rig.init(restarted, 'session-2');
    await restarted.idle();
    await restarted.prefetch('');
    expect(uploads()).toHaveLength(3);
    const text = rig.fake
      .messages(WORKSPACE, 'demo')
      .map((m) => m.content)
      .join('\n');
    expect(text).toContain('Deploys on Fridays.');
    expect(text).toContain('prior_memory_file');
  });

  it("§2.7.30 the migration runs under the Python agent's flock on state/honcho_migration.json.lock: skipped while it is held past the timeout, done once it is released; its ledger keys are kept", async () => {
    rig = await startRig();
    const home = rig.home.path;
    fs.mkdirSync(path.join(home, 'memories'), { recursive: true });
    fs.writeFileSync(path.join(home, 'memories', 'MEMORY.md'), 'Project uses pnpm.\n');
    const ledger = path.join(home, LEDGER_FILE);
    fs.mkdirSync(path.dirname(ledger), { recursive: true });
    const pythonLedger = { version: 1, targets: { abc: { sources: {} } } };
    fs.writeFileSync(ledger, JSON.stringify(pythonLedger));
    const uploaded: string[] = [];
    const ctx = {
      hermesHome: home,
      workspaceId: WORKSPACE,
      userPeerId: 'alice',
      aiPeerId: 'hermes',
      now: () => new Date(0),
      upload: async (_peer: string, name: string) => {
        uploaded.push(name);
      },
    };
    const python = spawnPython(HOLD_LOCK_PY, `${ledger}.lock`);
    const exited = new Promise((resolve) => python.once('exit', resolve));
    expect(await stdoutLines(python).next()).toBe('locked');
    await expect(migrateMemoryFiles(ctx, 100)).rejects.toBeInstanceOf(LockTimeoutError);
    expect(uploaded).toEqual([]);
    const waiting = migrateMemoryFiles(ctx);
    python.stdin?.write('release\n');
    await exited;
    expect((await waiting).uploaded).toEqual(['consolidated_memory.md']);
    expect(uploaded).toEqual(['consolidated_memory.md']);
    const written = JSON.parse(fs.readFileSync(ledger, 'utf8'));
    expect(written.targets).toEqual(pythonLedger.targets);
    expect(Object.keys(written.uploaded)).toEqual(['hermes/alice/consolidated_memory.md']);
  }, 30_000);
});

/** Holds flock on a file the way the Python agent does (test/python/hold_lock.py). */
const HOLD_LOCK_PY = path.join(__dirname, 'python', 'hold_lock.py');
