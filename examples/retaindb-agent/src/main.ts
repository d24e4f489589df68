/**
 * Two sessions of an agent loop with RetainDB memory. Offline (the default) it runs against the
 * fake RetainDB shipped in `@hermes-memory/retaindb/testing`; with RETAINDB_API_KEY set it talks to
 * the real API (or RETAINDB_BASE_URL). The "model" is a stand-in that answers with what memory gave it,
 * so the output shows exactly what RetainDB recalled. Every turn goes through the durable queue
 * ($HERMES_HOME/retaindb_queue.db) before it is sent.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createBuiltinProvider } from '@hermes-memory/builtin';
import { MemoryManager, appendMemoryContext } from '@hermes-memory/core';
import { createRetaindbProvider } from '@hermes-memory/retaindb';
import { FAKE_RETAINDB_KEY, startFakeRetaindb } from '@hermes-memory/retaindb/testing';

export interface DemoOptions {
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  write: (text: string) => void;
}

export interface DemoResult {
  mode: 'fake' | 'live';
  /** What session 2's second turn got from memory, fenced (prefetch is prepared after each turn). */
  recall: string;
  /** retaindb_search in session 2 for session 1's topic. */
  search: string;
}

const SESSION_1 = [
  'Hi! I am Dana. I maintain the billing service and I deploy it every Tuesday.',
  'Our billing service is written in Go and runs on Postgres 16.',
];
const SESSION_2 = ['Good morning, I am back.', 'What do you remember about my billing service deployment?'];

async function session(
  id: string,
  options: DemoOptions,
  connection: { apiKey?: string; baseURL?: string },
  turns: readonly string[],
): Promise<{ manager: MemoryManager; recalls: string[] }> {
  const manager = new MemoryManager();
  manager.addProvider(createBuiltinProvider({}));
  manager.addProvider(
    createRetaindbProvider({ ...connection, project: 'retaindb-agent-demo' }, { env: options.env }),
  );
  await manager.initializeAll(id, { hermesHome: options.home, env: options.env });
  const recalls: string[] = [];
  let turn = 0;
  for (const user of turns) {
    await manager.onTurnStart(++turn, user);
    const recall = await manager.prefetchAll(user);
    recalls.push(appendMemoryContext(user, recall));
    const recalled = recalledLines(recall);
    const reply = recalled.length > 0 ? `(model) From memory: ${recalled.join(' ')}` : '(model) Noted.';
    options.write(`[${id}] user: ${user}\n[${id}] assistant: ${reply}\n`);
    manager.syncAll(user, reply); // committed to the queue file before it returns
    manager.queuePrefetchAll(user); // recall for the next turn, in the background
    await manager.flushPending(10_000); // a demo waits; an agent would not
  }
  return { manager, recalls };
}

/**
 * What the stand-in model answers from: the recalled lines without the fence, the system note,
 * section headers, labels or bare tags. A real model answers in its own words; echoing the block
 * itself would show the fence to the user and sync the recall back to the backend as a new turn.
 */
function recalledLines(recall: string): string[] {
  return recall
    .split('\n')
    .map((line) => line.trim())
    .filter(
      (line) =>
        line !== '' &&
        !line.startsWith('[System note') &&
        !line.startsWith('#') &&
        !/^<\/?[\w-]+>$/.test(line) &&
        !/^\[[^\]]*\]$/.test(line) &&
        !line.endsWith(':') &&
        !/^-\s*none$/i.test(line),
    )
    .slice(0, 2);
}

export async function runRetaindbDemo(options: DemoOptions): Promise<DemoResult> {
  const live = Boolean(options.env.RETAINDB_API_KEY);
  const fake = live ? undefined : await startFakeRetaindb();
  const connection = fake ? { apiKey: FAKE_RETAINDB_KEY, baseURL: fake.url } : {};
  options.write(
    live
      ? 'Live mode: talking to RetainDB (RETAINDB_BASE_URL or api.retaindb.com).\n'
      : `Offline mode: the fake RetainDB at ${fake!.url}.\n`,
  );
  try {
    const first = await session('session-1', options, connection, SESSION_1);
    await first.manager.shutdownAll(); // sends what is queued; anything left stays on disk

    const second = await session('session-2', options, connection, SESSION_2);
    const search = await second.manager.handleToolCall('retaindb_search', {
      query: 'billing deploy Tuesday',
    });
    options.write(`[session-2] retaindb_search: ${search}\n`);
    await second.manager.shutdownAll();
    return { mode: live ? 'live' : 'fake', recall: second.recalls[1] ?? '', search };
  } finally {
    await fake?.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'retaindb-agent-'));
  runRetaindbDemo({ home, env: process.env, write: (text) => process.stdout.write(text) })
    .then((result) => process.stdout.write(`\nSession 2 got from memory:\n${result.recall}\n`))
    .finally(() => fs.rmSync(home, { recursive: true, force: true }));
}
