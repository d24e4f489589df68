/**
 * Two sessions of an agent loop with Honcho memory. Offline (the default) it runs against the fake
 * Honcho shipped in `@hermes-memory/honcho/testing`; with HONCHO_API_KEY or HONCHO_BASE_URL set it
 * talks to that Honcho instead. The "model" is a stand-in that answers with what memory gave it, so the
 * output shows exactly what Honcho recalled.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createBuiltinProvider } from '@hermes-memory/builtin';
import { appendMemoryContext, MemoryManager } from '@hermes-memory/core';
import { createHonchoProvider } from '@hermes-memory/honcho';
import { startFakeHoncho } from '@hermes-memory/honcho/testing';

export interface DemoOptions {
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  write: (text: string) => void;
}

export interface DemoResult {
  mode: 'fake' | 'live';
  /** What session 2's first turn got from memory, fenced. */
  recall: string;
  /** honcho_search in session 2 for session 1's topic. */
  search: string;
}

const SESSION_1 = [
  'Hi! I am Dana. I maintain the billing service and I deploy it every Tuesday.',
  'Our billing service is written in Go and runs on Postgres 16.',
];
const SESSION_2_QUESTION = 'What do you remember about my billing service deployment?';

async function session(
  id: string,
  options: DemoOptions,
  connection: { apiKey?: string; baseUrl?: string },
  turns: readonly string[],
): Promise<{ manager: MemoryManager; recalls: string[] }> {
  const manager = new MemoryManager();
  manager.addProvider(createBuiltinProvider({}));
  manager.addProvider(
    createHonchoProvider(
      { config: { ...connection, peerName: 'dana', writeFrequency: 'turn', workspace: 'honcho-agent-demo' } },
      { hermesHome: options.home, env: options.env },
    ),
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

export async function runHonchoDemo(options: DemoOptions): Promise<DemoResult> {
  const live = Boolean(options.env.HONCHO_API_KEY || options.env.HONCHO_BASE_URL);
  const fake = live ? undefined : await startFakeHoncho({ apiKey: 'demo-key' });
  const connection = fake ? { apiKey: 'demo-key', baseUrl: fake.url } : {};
  options.write(
    live
      ? 'Live mode: talking to the Honcho in HONCHO_BASE_URL / api.honcho.dev.\n'
      : `Offline mode: the fake Honcho at ${fake!.url}.\n`,
  );
  try {
    const first = await session('session-1', options, connection, SESSION_1);
    await first.manager.onSessionEnd([]);
    await first.manager.shutdownAll();

    const second = await session('session-2', options, connection, [SESSION_2_QUESTION]);
    const search = await second.manager.handleToolCall('honcho_search', { query: 'billing deploy Tuesday' });
    options.write(`[session-2] honcho_search: ${search}\n`);
    await second.manager.shutdownAll();
    return { mode: live ? 'live' : 'fake', recall: second.recalls[0] ?? '', search };
  } finally {
    await fake?.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'honcho-agent-'));
  runHonchoDemo({ home, env: process.env, write: (text) => process.stdout.write(text) })
    .then((result) => process.stdout.write(`\nSession 2 got from memory:\n${result.recall}\n`))
    .finally(() => fs.rmSync(home, { recursive: true, force: true }));
}
