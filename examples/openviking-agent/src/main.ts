/**
 * Two sessions of an agent loop with OpenViking memory. Offline (the default) it runs against the
 * fake OpenViking server shipped in `@hermes-memory/openviking/testing`; with OPENVIKING_ENDPOINT
 * set it talks to that server instead. Session 1's turns are posted to an OpenViking session, which
 * is committed at its end — the server extracts memories — and session 2's first turn recalls them.
 * The "model" answers with what memory gave it, so the output shows exactly what OpenViking recalled.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createBuiltinProvider } from '@hermes-memory/builtin';
import { appendMemoryContext, MemoryManager } from '@hermes-memory/core';
import { createOpenvikingProvider } from '@hermes-memory/openviking';
import { startFakeOpenviking } from '@hermes-memory/openviking/testing';

export interface DemoOptions {
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  write: (text: string) => void;
}

export interface DemoResult {
  mode: 'fake' | 'live';
  /** What session 2's first turn got from memory, fenced. */
  recall: string;
  /** viking_search in session 2 for session 1's topic. */
  search: string;
}

const SESSION_1 = [
  'Hi! I am Dana and I maintain the billing service; we deploy it every Tuesday.',
  'I prefer short answers with code examples in Go.',
];
const SESSION_2_QUESTION = 'When do we deploy the billing service?';

async function session(
  id: string,
  options: DemoOptions,
  endpoint: string | undefined,
  turns: readonly string[],
) {
  const manager = new MemoryManager();
  manager.addProvider(createBuiltinProvider({}));
  manager.addProvider(
    createOpenvikingProvider(endpoint ? { endpoint, autoStart: false } : {}, { env: options.env }),
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
    manager.syncAll(user, reply);
    manager.queuePrefetchAll(user);
    await manager.flushPending(10_000);
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

export async function runOpenvikingDemo(options: DemoOptions): Promise<DemoResult> {
  const live = Boolean(options.env.OPENVIKING_ENDPOINT || options.env.OPENVIKING_URL);
  const fake = live ? undefined : await startFakeOpenviking();
  options.write(
    live
      ? `Live mode: talking to the OpenViking server in OPENVIKING_ENDPOINT.\n`
      : `Offline mode: the fake OpenViking server at ${fake!.url}.\n`,
  );
  try {
    const first = await session('session-1', options, fake?.url, SESSION_1);
    // The session end commits the OpenViking session: the server extracts memories from it.
    await first.manager.onSessionEnd([]);
    await first.manager.shutdownAll();

    const second = await session('session-2', options, fake?.url, [SESSION_2_QUESTION]);
    const search = await second.manager.handleToolCall('viking_search', {
      query: 'billing service deploy Tuesday',
    });
    options.write(`[session-2] viking_search: ${search}\n`);
    await second.manager.shutdownAll();
    return { mode: live ? 'live' : 'fake', recall: second.recalls[0] ?? '', search };
  } finally {
    await fake?.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'openviking-agent-'));
  runOpenvikingDemo({ home, env: process.env, write: (text) => process.stdout.write(text) })
    .then((result) => process.stdout.write(`\nSession 2 got from memory:\n${result.recall}\n`))
    .finally(() => fs.rmSync(home, { recursive: true, force: true }));
}
