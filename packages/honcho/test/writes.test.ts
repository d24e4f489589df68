import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LockTimeoutError, ManualClock } from '@hermes-memory/core';
import { runPythonJson, spawnPython, stdoutLines } from '@hermes-memory/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { effectiveBaseUrl } from '../src/client/honcho-client';
import { chunkMessage } from '../src/index';
import {
  LEDGER_FILE,
  MigrationStateError,
  markerSessionId,
  migrateMemoryFiles,
  targetKey,
} from '../src/session/migration';
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
    // The Python agent's key derivation finds every upload in the ledger we wrote.
    const home = rig.home.path;
    const memories = path.join(home, 'memories');
    expect(await readLedgerAsPython(ledger, endpointOf(rig), 'alice', 'hermes', memories, home)).toEqual({
      [memories]: { 'MEMORY.md': true, 'USER.md': true },
      [home]: { 'SOUL.md': true },
    });
    await first.shutdown();

    // A restart into a new, empty session (another directory): the ledger stops a second upload.
    const restarted = rig.provider({}, { cwd: '/srv/projects/other' });
    await rig.init(restarted, 'session-2');
    await restarted.idle();
    await restarted.prefetch('');
    expect(uploads()).toHaveLength(3);
    // The uploads live in the target's marker session (the reference's), not in the conversation.
    expect(rig.fake.messages(WORKSPACE, 'demo')).toEqual([]);
    const marker = markerSessionId(
      targetKey({
        endpoint: endpointOf(rig),
        workspace_id: WORKSPACE,
        user_peer_id: 'alice',
        ai_peer_id: 'hermes',
      }),
    );
    const text = rig.fake
      .messages(WORKSPACE, marker)
      .map((m) => m.content)
      .join('\n');
    expect(text).toContain('Deploys on Fridays.');
    expect(text).toContain('prior_memory_file');
  });

  it("§2.7.30 only the owner's sessions migrate the memory files: a gateway stranger's first chat uploads nothing (the owner's notes would become the stranger's in Honcho); the owner's alias on that gateway, and a CLI session with no peerName, do", async () => {
    rig = await startRig();
    fs.mkdirSync(path.join(rig.home.path, 'memories'), { recursive: true });
    fs.writeFileSync(path.join(rig.home.path, 'memories', 'USER.md'), 'Alice lives in Lisbon.\n');
    const uploads = () =>
      rig.fake.requestsTo('POST /v3/workspaces/:workspace/sessions/:session/messages/upload');
    const uploadedPeers = () =>
      uploads().map((r) => String(r.rawBody.match(/name="peer_id"\r\n\r\n([^\r]+)/)?.[1]));
    const infos: string[] = [];
    const logger = { debug() {}, info: (m: string) => infos.push(m), warn() {}, error() {} };
    const session = async (config: Record<string, unknown>, id: string, userId?: string) => {
      const provider = rig.provider(config as never);
      await rig.init(provider, id, { platform: userId ? 'telegram' : 'cli', userId, logger });
      await provider.idle();
      await provider.shutdown();
    };

    await session({ sessionStrategy: 'per-session' }, 'tg-stranger', '42');
    await session({}, 'tg-stranger-2', '42');
    await session({ peerName: '' }, 'tg-no-owner', '42');
    expect(uploads()).toHaveLength(0);
    expect(infos.filter((m) => m.includes('not the declared owner'))).toEqual([
      "Honcho: memory files not migrated: the user peer '42' is not the declared owner (peerName=alice).",
      "Honcho: memory files not migrated: the user peer '42' is not the declared owner (peerName=unset).",
    ]);

    await session({ userPeerAliases: { '7': 'alice' } }, 'tg-owner', '7');
    expect(uploadedPeers()).toEqual(['alice']);
    await session({ peerName: '' }, 'cli-no-owner');
    expect(uploadedPeers()).toHaveLength(2);
    expect(uploadedPeers()[1]).not.toBe('42');
  });

  it("§2.7.30 the migration runs under the Python agent's flock on state/honcho_migration.json.lock: skipped while it is held past the timeout, done once it is released; its ledger keys are kept", async () => {
    rig = await startRig();
    const home = rig.home.path;
    fs.mkdirSync(path.join(home, 'memories'), { recursive: true });
    fs.writeFileSync(path.join(home, 'memories', 'MEMORY.md'), 'Project uses pnpm.\n');
    const ledger = path.join(home, LEDGER_FILE);
    fs.mkdirSync(path.dirname(ledger), { recursive: true });
    const pythonLedger = { version: 1, targets: { abc: { sources: {} } }, extra: 'kept' };
    fs.writeFileSync(ledger, JSON.stringify(pythonLedger));
    const { uploaded, ctx } = migrationContext(home);
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
    expect(written.targets.abc).toEqual(pythonLedger.targets.abc);
    expect(written.extra).toBe('kept');
    const memories = path.join(home, 'memories');
    expect(await readLedgerAsPython(ledger, ctx.endpoint, 'alice', 'hermes', memories)).toEqual({
      [memories]: { 'MEMORY.md': true },
    });
  }, 30_000);

  describe("§2.7.30 the ledger is the Python agent's", () => {
    const homes: string[] = [];
    afterEach(() => {
      for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
    });
    const setup = () => {
      const home = fs.mkdtempSync(path.join(os.tmpdir(), 'honcho-ledger-'));
      homes.push(home);
      fs.mkdirSync(path.join(home, 'memories'));
      fs.writeFileSync(path.join(home, 'memories', 'MEMORY.md'), 'Project uses pnpm.\n');
      fs.writeFileSync(path.join(home, 'memories', 'USER.md'), 'Alice prefers short answers.\n');
      fs.writeFileSync(path.join(home, 'SOUL.md'), 'You are Hermes.\n');
      const { uploaded, ctx } = migrationContext(home);
      return {
        home,
        memories: path.join(home, 'memories'),
        ledger: path.join(home, LEDGER_FILE),
        uploaded,
        ctx,
      };
    };
    const writeAsPython = (ledger: string, endpoint: string, user: string, dir: string, ...files: string[]) =>
      runPythonJson(LEDGER_PY, 'write', ledger, endpoint, WORKSPACE, user, 'hermes', dir, ...files);

    it('a ledger the Python agent wrote skips its uploads (same target and source); another target uploads, once', async () => {
      const { home, memories, ledger, uploaded, ctx } = setup();
      await writeAsPython(ledger, ctx.endpoint, 'alice', memories, 'MEMORY.md', 'USER.md');
      expect((await migrateMemoryFiles(ctx)).uploaded).toEqual(['agent_soul.md']);
      expect(uploaded).toEqual(['agent_soul.md']);
      // Another endpoint is another target: everything goes up there, once.
      const elsewhere = { ...ctx, endpoint: 'http://localhost:8000' };
      expect((await migrateMemoryFiles(elsewhere)).uploaded).toHaveLength(3);
      expect((await migrateMemoryFiles(elsewhere)).uploaded).toEqual([]);
      expect(await readLedgerAsPython(ledger, elsewhere.endpoint, 'alice', 'hermes', memories, home)).toEqual(
        {
          [memories]: { 'MEMORY.md': true, 'USER.md': true },
          [home]: { 'SOUL.md': true },
        },
      );
      // A non-ASCII peer id hashes as Python's ASCII-escaped canonical JSON does.
      await writeAsPython(ledger, ctx.endpoint, 'zoë', memories, 'MEMORY.md', 'USER.md');
      expect((await migrateMemoryFiles({ ...ctx, userPeerId: 'zoë' })).uploaded).toEqual(['agent_soul.md']);
    });

    it('entries of our earlier ledger (`uploaded`) still count as done after an upgrade, kept and recorded for the Python agent', async () => {
      const { home, memories, ledger, uploaded, ctx } = setup();
      fs.mkdirSync(path.dirname(ledger));
      const legacy = {
        version: 1,
        uploaded: { 'hermes/alice/consolidated_memory.md': '2026-01-01T00:00:00.000Z' },
      };
      fs.writeFileSync(ledger, JSON.stringify(legacy));
      expect((await migrateMemoryFiles(ctx)).uploaded).toEqual(['user_profile.md', 'agent_soul.md']);
      expect(uploaded).not.toContain('consolidated_memory.md');
      const written = JSON.parse(fs.readFileSync(ledger, 'utf8'));
      expect(written.uploaded).toEqual(legacy.uploaded);
      expect(written.version).toBe(1);
      expect(await readLedgerAsPython(ledger, ctx.endpoint, 'alice', 'hermes', memories, home)).toEqual({
        [memories]: { 'MEMORY.md': true, 'USER.md': true },
        [home]: { 'SOUL.md': true },
      });
      expect(fs.statSync(ledger).mode & 0o777).toBe(0o600);
    });

    it('corrupt or unknown state fails closed: nothing uploaded, the file left as it was', async () => {
      const { ledger, uploaded, ctx } = setup();
      fs.mkdirSync(path.dirname(ledger));
      const key = targetKeyOf(ctx);
      const broken = [
        '{"version": 1, "targets": ',
        '[]',
        JSON.stringify({ version: 2, targets: {} }),
        JSON.stringify({ version: 1, targets: [] }),
        JSON.stringify({ version: 1 }),
        JSON.stringify({ version: 1, targets: { [key]: 1 } }),
        JSON.stringify({ version: 1, targets: { [key]: { sources: [] } } }),
      ];
      for (const text of broken) {
        fs.writeFileSync(ledger, text);
        await expect(migrateMemoryFiles(ctx)).rejects.toBeInstanceOf(MigrationStateError);
        expect(fs.readFileSync(ledger, 'utf8')).toBe(text);
      }
      expect(uploaded).toEqual([]);
    });
  });
});

/** Holds flock on a file the way the Python agent does (test/python/hold_lock.py). */
const HOLD_LOCK_PY = path.join(__dirname, 'python', 'hold_lock.py');
/**
 * A migration into the cloud endpoint for alice and hermes whose remote is a list of uploads (the
 * marker lookup answers from it): these tests are about the ledger, the marker ones drive the fake.
 */
function migrationContext(home: string) {
  const uploaded: string[] = [];
  const ids = new Set<string>();
  const ctx = {
    hermesHome: home,
    endpoint: 'https://api.honcho.dev',
    workspaceId: WORKSPACE,
    userPeerId: 'alice',
    aiPeerId: 'hermes',
    remote: {
      openMarker: async () => undefined,
      hasUpload: async (_session: string, id: string) => ids.has(id),
      upload: async (
        _session: string,
        _peer: string,
        name: string,
        _text: string,
        metadata: Record<string, unknown>,
      ) => {
        uploaded.push(name);
        ids.add(String(metadata.migration_id));
      },
    },
  };
  return { uploaded, ctx };
}
/** Reads and builds the migration ledger with the Python agent's key derivation. */
const LEDGER_PY = path.join(__dirname, 'python', 'migration_ledger.py');
const targetKeyOf = (c: { endpoint: string; userPeerId: string; aiPeerId: string }) =>
  targetKey({
    endpoint: c.endpoint,
    workspace_id: WORKSPACE,
    user_peer_id: c.userPeerId,
    ai_peer_id: c.aiPeerId,
  });
const endpointOf = (r: Rig) => effectiveBaseUrl(r.fake.url, 'production');
const readLedgerAsPython = (ledger: string, endpoint: string, user: string, ai: string, ...dirs: string[]) =>
  runPythonJson(LEDGER_PY, 'read', ledger, endpoint, WORKSPACE, user, ai, ...dirs);
