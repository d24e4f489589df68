/**
 * Tiered memory (decision 0130): one **canonical** provider takes the conversation's writes —
 * here holographic, the local fact store — and any number of **secondaries** join read-only —
 * here hivemind: the agent's peers over Matrix and the shared Hermes notebook. Recall from each is
 * labelled (`## Recall from <id>`), folded and kept within one budget; the secondary never sees
 * what the user says except the query it searches with.
 *
 * The same agent is wired twice: in code (`addProvider(p, {role: 'secondary'})`), and from
 * `config.yaml` (`memory.provider` + `memory.secondary`) the way `hermes-memory` and an agent
 * runtime read it. Offline it runs against the fake homeserver and notebook shipped in
 * `@hermes-memory/hivemind/testing`; see the README for a real homeserver.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createBuiltinProvider } from '@hermes-memory/builtin';
import { openManager } from '@hermes-memory/cli';
import { MemoryManager, saveConfigValues, writeEnvValues } from '@hermes-memory/core';
import { createHivemindProvider, MatrixClient } from '@hermes-memory/hivemind';
import { FAKE_NOTEBOOK_KEY, startFakeHomeserver, startFakeNotebook } from '@hermes-memory/hivemind/testing';
import { createHolographicProvider } from '@hermes-memory/holographic';

export interface TieredOptions {
  home: string;
  write: (text: string) => void;
}

export interface TieredRun {
  /** Each provider's place in the manager (`builtin`, `canonical`, `secondary`). */
  roles: Record<string, string | null>;
  /** Turn 1's recall: hivemind's peer and the notebook's hint (holographic knows nothing yet). */
  firstRecall: string;
  /** Turn 2's recall: holographic's fact and hivemind's peer, each under its own label. */
  recall: string;
  /** Requests that reached the homeserver while the conversation was written (none but reads). */
  homeserverWrites: number;
}

export interface TieredResult {
  inCode: TieredRun;
  fromConfig: TieredRun;
}

const SAYS = 'I run an SGX enclave for payments; it needs an audit before launch.';
/** What the model keeps of it, with holographic's fact_store. */
const FACT = 'The user runs an SGX enclave for payments and needs a security audit before launch.';
const QUESTION = 'Who could audit my SGX enclave before launch?';

/** Two turns, as an agent loop drives the manager. */
async function converse(
  manager: MemoryManager,
  options: TieredOptions,
  label: string,
): Promise<{ firstRecall: string; recall: string }> {
  await manager.onTurnStart(1, SAYS);
  const firstRecall = await manager.prefetchAll(SAYS);
  options.write(`\n[${label}] turn 1: ${SAYS}\n${indent(firstRecall)}\n`);
  // The model decides to keep the fact: the canonical provider's tool stores it.
  await manager.handleToolCall('fact_store', { action: 'add', content: FACT, category: 'project' });
  manager.syncAll(SAYS, 'Noted.');
  manager.queuePrefetchAll(SAYS);
  await manager.flushPending(10_000);

  await manager.onTurnStart(2, QUESTION);
  const recall = await manager.prefetchAll(QUESTION);
  options.write(`\n[${label}] turn 2: ${QUESTION}\n${indent(recall)}\n`);
  return { firstRecall, recall };
}

function rolesOf(manager: MemoryManager): Record<string, string | null> {
  return Object.fromEntries(
    ['builtin', 'holographic', 'hivemind'].map((name) => [name, manager.providerRole(name)]),
  );
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

export async function runTieredDemo(options: TieredOptions): Promise<TieredResult> {
  const homeserver = await startFakeHomeserver();
  const notebook = await startFakeNotebook({
    entries: [
      {
        pseudonym: 'Wandering Echo#4f2a1b',
        content: 'Notes from an SGX enclave audit: check the attestation flow first.',
      },
    ],
  });
  options.write(`Offline: fake homeserver at ${homeserver.url}, fake notebook at ${notebook.url}.\n`);
  try {
    // A person (alice) introduces her friend's agent (bob) to an auditor's agent (carol).
    const alice = homeserver.registerUser('alice');
    const bob = homeserver.registerUser('hermes-of-bob');
    const carol = homeserver.registerUser('hermes-of-carol');
    const operator = new MatrixClient({
      homeserver: homeserver.url,
      ...alice,
      timeoutMs: 5000,
      maxRetries: 1,
    });
    const room = await operator.createRoom({
      name: 'Introduction',
      preset: 'private_chat',
      invite: [bob.userId, carol.userId],
    });
    for (const line of [
      `About ${bob.userId}: Bob's agent; Bob is launching a payments enclave.`,
      `About ${carol.userId}: Carol audits SGX enclaves and attestation flows.`,
    ])
      await operator.send(room, 'm.room.message', { msgtype: 'm.text', body: line });

    // 1. In code: builtin first, the canonical provider, then the secondary.
    const codeHome = path.join(options.home, 'in-code');
    fs.mkdirSync(codeHome, { recursive: true });
    const manager = new MemoryManager();
    const hivemind = createHivemindProvider(
      {
        homeserver: homeserver.url,
        userId: bob.userId,
        accessToken: bob.accessToken,
        notebookUrl: notebook.url,
        notebookKey: FAKE_NOTEBOOK_KEY,
      },
      { env: {}, providerConfig: {} },
    );
    manager.addProvider(createBuiltinProvider({}));
    manager.addProvider(createHolographicProvider()); // canonical: takes the writes
    manager.addProvider(hivemind, { role: 'secondary' }); // read-only
    let inCode: TieredRun;
    try {
      await manager.initializeAll('tiered-in-code', { hermesHome: codeHome, platform: 'cli', env: {} });
      await hivemind.idle(); // its first sync (and its own peer bookkeeping) before we count
      const mark = homeserver.requests.length;
      const recalls = await converse(manager, options, 'in code');
      inCode = {
        roles: rolesOf(manager),
        ...recalls,
        homeserverWrites: homeserver.requests.slice(mark).filter((r) => r.path.includes('/send/')).length,
      };
    } finally {
      await manager.shutdownAll();
    }

    // 2. From config.yaml, as hermes-memory and an agent runtime wire it (providers found by discovery).
    const configHome = path.join(options.home, 'from-config');
    fs.mkdirSync(configHome, { recursive: true });
    saveConfigValues(configHome, {
      'memory.provider': 'holographic',
      'memory.secondary': ['hivemind'],
      'memory.hivemind': { homeserver: homeserver.url, user_id: bob.userId, notebook_url: notebook.url },
    });
    writeEnvValues(configHome, {
      MATRIX_ACCESS_TOKEN: bob.accessToken,
      HERMES_SECRET_KEY: FAKE_NOTEBOOK_KEY,
    });
    options.write(
      `\nconfig.yaml:\n${indent(fs.readFileSync(path.join(configHome, 'config.yaml'), 'utf8').trimEnd())}\n`,
    );
    const opened = await openManager(configHome, {
      platform: 'cli',
      env: {},
      cwd: path.dirname(fileURLToPath(import.meta.url)),
    });
    let fromConfig: TieredRun;
    try {
      const secondary = opened.secondaries.find((p) => p.name === 'hivemind') as {
        idle?: () => Promise<void>;
      };
      await secondary?.idle?.();
      const mark = homeserver.requests.length;
      const recalls = await converse(opened.manager, options, 'from config.yaml');
      fromConfig = {
        roles: rolesOf(opened.manager),
        ...recalls,
        homeserverWrites: homeserver.requests.slice(mark).filter((r) => r.path.includes('/send/')).length,
      };
    } finally {
      await opened.manager.shutdownAll();
    }
    return { inCode, fromConfig };
  } finally {
    await homeserver.close();
    await notebook.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tiered-agent-'));
  runTieredDemo({ home, write: (text) => process.stdout.write(text) }).finally(() =>
    fs.rmSync(home, { recursive: true, force: true }),
  );
}
