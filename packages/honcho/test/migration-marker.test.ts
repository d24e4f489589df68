/**
 * §2.7.30, the reference's remote half of the memory-file migration: the uploads go into a marker
 * session per target, each carrying its file's `migration_id`, which is looked up before every
 * upload so a lost ledger write never uploads a file twice. Driven through the official SDK against
 * the shipped fake.
 */
import fs from 'node:fs';
import path from 'node:path';
import { collectLogs, runPythonJson, spawnPython, stdoutLines } from '@hermes-memory/testkit';
import { Honcho } from '@honcho-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { HonchoBackend } from '../src/client/backend';
import { effectiveBaseUrl, HonchoClient } from '../src/client/honcho-client';
import type { JsonObject } from '../src/config/values';
import { SESSION_ID_MAX_LENGTH } from '../src/identity/session-name';
import {
  LEDGER_FILE,
  type MigrationContext,
  markerSessionId,
  migrateMemoryFiles,
  migrationId,
  sdkMigrationRemote,
  sourceKey,
  targetKey,
} from '../src/session/migration';
import { API_KEY, type Rig, startRig, WORKSPACE } from './harness';

let rig: Rig;
afterEach(async () => rig?.close());

const UPLOAD = 'POST /v3/workspaces/:workspace/sessions/:session/messages/upload';
const LOOKUP = 'POST /v3/workspaces/:workspace/sessions/:session/messages/list';
const LEDGER_PY = path.join(__dirname, 'python', 'migration_ledger.py');
const HOLD_LOCK_PY = path.join(__dirname, 'python', 'hold_lock.py');

function writeMemoryFiles(home: string): void {
  fs.mkdirSync(path.join(home, 'memories'), { recursive: true });
  fs.writeFileSync(path.join(home, 'memories', 'MEMORY.md'), 'Project uses pnpm.\n§\nDeploys on Fridays.\n');
  fs.writeFileSync(path.join(home, 'memories', 'USER.md'), 'Alice prefers short answers.\n');
  fs.writeFileSync(path.join(home, 'SOUL.md'), 'You are Hermes, calm and precise.\n');
}

const endpoint = () => effectiveBaseUrl(rig.fake.url, 'production');
const target = () =>
  targetKey({ endpoint: endpoint(), workspace_id: WORKSPACE, user_peer_id: 'alice', ai_peer_id: 'hermes' });
const uploads = () => rig.fake.requestsTo(UPLOAD);
const lookups = () => rig.fake.requestsTo(LOOKUP);
const uploadedIds = () =>
  uploads().map(
    (r) => JSON.parse(String(r.rawBody.match(/name="metadata"\r\n\r\n([^\r]+)/)?.[1])).migration_id,
  );
const ledgerPath = () => path.join(rig.home.path, LEDGER_FILE);
const readLedgerAsPython = () => {
  const home = rig.home.path;
  return runPythonJson(
    LEDGER_PY,
    'read',
    ledgerPath(),
    endpoint(),
    WORKSPACE,
    'alice',
    'hermes',
    path.join(home, 'memories'),
    home,
  );
};

/** A migration through the SDK against the fake, as the provider runs it (retries off). */
function sdkMigration(optOut = { user: false, ai: false }): MigrationContext {
  const client = new HonchoClient({
    apiKey: API_KEY,
    apiKeyInFile: true,
    baseUrl: rig.fake.url,
    environment: 'production',
    workspaceId: WORKSPACE,
    timeoutMs: 5_000,
    maxRetries: 0,
  });
  const backend = new HonchoBackend(client);
  return {
    hermesHome: rig.home.path,
    endpoint: client.baseUrl,
    workspaceId: WORKSPACE,
    userPeerId: 'alice',
    aiPeerId: 'hermes',
    remote: sdkMigrationRemote(backend, { userPeerId: 'alice', aiPeerId: 'hermes', optOut }),
  };
}

/** A session of a provider on the fake, from initialize to shutdown (its migration done). */
async function runSession(config: JsonObject = {}, cwd = '/srv/projects/demo', sessionId = 'session-1') {
  const logs = collectLogs();
  const provider = rig.provider(config, { cwd });
  await rig.init(provider, sessionId, { logger: logs.logger });
  await provider.idle();
  await provider.shutdown();
  return logs;
}

describe("§2.7.30 the migration marker session (the reference's remote ledger)", () => {
  it('the uploads go into hermes-memory-migration-<target_key> (88 characters, under the 100 cap) with their migration_id; the session says what it is', async () => {
    rig = await startRig();
    writeMemoryFiles(rig.home.path);
    await runSession();
    const marker = markerSessionId(target());
    expect(marker).toMatch(/^hermes-memory-migration-[0-9a-f]{64}$/);
    expect(marker.length).toBeLessThanOrEqual(SESSION_ID_MAX_LENGTH);
    expect(new Set(uploads().map((r) => r.params.session))).toEqual(new Set([marker]));
    const memories = fs.realpathSync(path.join(rig.home.path, 'memories'));
    const home = fs.realpathSync(rig.home.path);
    expect(uploadedIds()).toEqual([
      migrationId(target(), sourceKey(memories), 'MEMORY.md'),
      migrationId(target(), sourceKey(memories), 'USER.md'),
      migrationId(target(), sourceKey(home), 'SOUL.md'),
    ]);
    // Each lookup asked the marker session for exactly the id the upload then carried.
    expect(lookups().map((r) => [r.params.session, r.body])).toEqual(
      uploadedIds().map((id) => [marker, { filters: { metadata: { migration_id: id } } }]),
    );
    const session = rig.fake.state.workspaces[WORKSPACE]!.sessions[marker]!;
    expect(session.metadata).toEqual({ source: 'hermes_memory_migration', target_key: target() });
    expect(rig.fake.messages(WORKSPACE, marker).every((m) => m.metadata.source === 'local_memory')).toBe(
      true,
    );
  });

  it('a file uploaded whose ledger entry is gone (a crash, another home on the same workspace) is found by its migration_id and recorded, not uploaded again; a recorded file is not even looked up', async () => {
    rig = await startRig();
    writeMemoryFiles(rig.home.path);
    await runSession();
    expect(uploads()).toHaveLength(3);

    // The ledger is lost; the files are already in Honcho. (Before the marker lookup: 3 more uploads.)
    fs.rmSync(ledgerPath());
    const logs = await runSession({}, '/srv/projects/other', 'session-2');
    expect(uploads()).toHaveLength(3);
    expect(lookups()).toHaveLength(6);
    expect(logs.messages().join('\n')).toMatch(
      /consolidated_memory\.md, user_profile\.md, agent_soul\.md already in Honcho/,
    );
    // Recorded where the Python agent looks.
    const memories = path.join(rig.home.path, 'memories');
    expect(await readLedgerAsPython()).toEqual({
      [memories]: { 'MEMORY.md': true, 'USER.md': true },
      [rig.home.path]: { 'SOUL.md': true },
    });

    await runSession({}, '/srv/projects/third', 'session-3');
    expect(lookups()).toHaveLength(6);
    expect(uploads()).toHaveLength(3);
  });

  it('a ledger write that fails after an upload (disk full) stops the run and says so; the next run finds that upload and uploads only the rest', async () => {
    rig = await startRig();
    writeMemoryFiles(rig.home.path);
    const ctx = sdkMigration();
    const ledger = ledgerPath();
    const failingDisk: MigrationContext = {
      ...ctx,
      remote: {
        ...ctx.remote,
        async upload(...args) {
          await ctx.remote.upload(...args);
          // The atomic rename onto the ledger fails: a non-empty directory sits where it goes.
          fs.rmSync(ledger, { force: true });
          fs.mkdirSync(path.join(ledger, 'blocker'), { recursive: true });
        },
      },
    };
    const broken = await migrateMemoryFiles(failingDisk);
    expect(broken.uploaded).toEqual(['consolidated_memory.md']);
    expect(broken.failed).toEqual([
      {
        file: 'memories/MEMORY.md',
        error: expect.stringMatching(/^done, but the ledger could not be written/),
      },
    ]);
    expect(uploads()).toHaveLength(1);

    fs.rmSync(ledger, { recursive: true });
    const again = await migrateMemoryFiles(ctx);
    expect(again).toEqual({
      uploaded: ['user_profile.md', 'agent_soul.md'],
      reconciled: ['consolidated_memory.md'],
      refused: [],
      failed: [],
    });
    expect(uploads()).toHaveLength(3);
    expect(new Set(uploadedIds()).size).toBe(3);
  });

  it('a lookup that fails uploads nothing (an unknown answer must not risk a second copy) and the files go up once at the next run; a refused key stops at the first file', async () => {
    rig = await startRig();
    writeMemoryFiles(rig.home.path);
    const ctx = sdkMigration();
    rig.fake.fail({ type: 'status', status: 422, route: LOOKUP, count: 3 });
    const refused = await migrateMemoryFiles(ctx);
    expect(refused.uploaded).toEqual([]);
    expect(refused.failed.map((f) => f.file)).toEqual(['memories/MEMORY.md', 'memories/USER.md', 'SOUL.md']);
    expect(refused.failed.every((f) => f.error.startsWith('not uploaded, the lookup failed'))).toBe(true);
    expect(uploads()).toHaveLength(0);
    expect(fs.existsSync(ledgerPath())).toBe(false);

    rig.fake.fail({ type: 'status', status: 401, route: LOOKUP });
    const unauthorized = await migrateMemoryFiles(ctx);
    expect(unauthorized.failed.map((f) => f.file)).toEqual(['memories/MEMORY.md']);
    expect(lookups()).toHaveLength(4);
    expect(uploads()).toHaveLength(0);

    expect((await migrateMemoryFiles(ctx)).uploaded).toEqual([
      'consolidated_memory.md',
      'user_profile.md',
      'agent_soul.md',
    ]);
    expect((await migrateMemoryFiles(ctx)).uploaded).toEqual([]);
    expect(uploads()).toHaveLength(3);
  });

  it('in the marker session neither peer observes the other, and a peer whose observation is off (config, session or peer) stays off', async () => {
    rig = await startRig();
    writeMemoryFiles(rig.home.path);
    await runSession({ observationMode: 'directional', observation: { user: { observeMe: false } } });
    const marker = () => rig.fake.state.workspaces[WORKSPACE]!.sessions[markerSessionId(target())]!;
    expect(marker().peers).toEqual({
      alice: { observe_me: false, observe_others: false },
      hermes: { observe_me: null, observe_others: false },
    });

    // Another target (another endpoint), where the AI peer's own configuration has observation off.
    rig.fake.state.workspaces[WORKSPACE]!.peers.hermes!.configuration = { observe_me: false };
    const ctx = { ...sdkMigration(), endpoint: 'http://other.example' };
    await migrateMemoryFiles(ctx);
    const other = markerSessionId(
      targetKey({
        endpoint: 'http://other.example',
        workspace_id: WORKSPACE,
        user_peer_id: 'alice',
        ai_peer_id: 'hermes',
      }),
    );
    expect(rig.fake.state.workspaces[WORKSPACE]!.sessions[other]!.peers).toEqual({
      alice: { observe_me: null, observe_others: false },
      hermes: { observe_me: false, observe_others: false },
    });
  });

  it("the migration runs in the background: while the Python agent holds the ledger's lock, the first turn still gets its base context; the files go up once the lock is released", async () => {
    rig = await startRig();
    writeMemoryFiles(rig.home.path);
    const sdk = new Honcho({ baseURL: rig.fake.url, apiKey: API_KEY, workspaceId: WORKSPACE, maxRetries: 0 });
    const alice = await sdk.peer('alice');
    for (const observer of [alice, await sdk.peer('hermes')])
      await observer.conclusionsOf(alice).create({ content: 'Alice deploys with pnpm on Fridays.' });
    fs.mkdirSync(path.dirname(ledgerPath()), { recursive: true });
    const python = spawnPython(HOLD_LOCK_PY, `${ledgerPath()}.lock`);
    const exited = new Promise((resolve) => python.once('exit', resolve));
    expect(await stdoutLines(python).next()).toBe('locked');

    const provider = rig.provider();
    await rig.init(provider);
    provider.onTurnStart(1, 'what do you know about me?');
    // Before, session init waited for the migration (here: the lock, up to 5 s): the turn's 3 s
    // base-context budget ran out and the first turn went without context.
    expect(await provider.prefetch('what do you know about me?')).toContain(
      'Alice deploys with pnpm on Fridays.',
    );
    expect(uploads()).toHaveLength(0);

    python.stdin?.write('release\n');
    await exited;
    await provider.idle();
    expect(uploads()).toHaveLength(3);
  }, 30_000);
});
