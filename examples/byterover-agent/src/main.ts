/**
 * Two sessions of an agent loop with ByteRover memory. Offline (the default) it runs against the
 * fake `brv` shipped in `@hermes-memory/byterover/testing`, which keeps a real context tree
 * (`$HERMES_HOME/byterover/.brv/context-tree/**.md`); with BRV_EXAMPLE_BRV set to a brv executable
 * (e.g. `$(which brv)`, with an LLM provider connected) it uses the real CLI. The "model" is a
 * stand-in that answers with what memory gave it, so the output shows exactly what ByteRover recalled.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createBuiltinProvider } from '@hermes-memory/builtin';
import { createByteroverProvider } from '@hermes-memory/byterover';
import { startFakeBrv } from '@hermes-memory/byterover/testing';
import { appendMemoryContext, MemoryManager } from '@hermes-memory/core';

export interface DemoOptions {
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  write: (text: string) => void;
}

export interface DemoResult {
  mode: 'fake' | 'live';
  /** What session 2's question got from memory, fenced. */
  recall: string;
  /** brv_search in session 2 for session 1's topic. */
  search: string;
}

const SESSION_1 = [
  'Hi! I am Dana. I maintain the billing service and I deploy it every Tuesday.',
  'Our billing service is written in Go and runs on Postgres 16.',
];
const SESSION_2 = ['Good morning, I am back after the weekend.', 'When do I deploy the billing service?'];

async function session(
  id: string,
  options: DemoOptions,
  brvPath: string,
  turns: readonly string[],
): Promise<{ manager: MemoryManager; recalls: string[] }> {
  const manager = new MemoryManager();
  manager.addProvider(createBuiltinProvider({}));
  manager.addProvider(createByteroverProvider({ brvPath }, { env: options.env, hermesHome: options.home }));
  await manager.initializeAll(id, { hermesHome: options.home, env: options.env });
  const recalls: string[] = [];
  let turn = 0;
  for (const user of turns) {
    await manager.onTurnStart(++turn, user); // starts `brv query` for this message
    const recall = await manager.prefetchAll(user); // turn 1 waits for it; later turns never do
    recalls.push(appendMemoryContext(user, recall));
    const recalled = recalledLines(recall);
    const reply = recalled.length > 0 ? `(model) From memory: ${recalled.join(' ')}` : '(model) Noted.';
    options.write(`[${id}] user: ${user}\n[${id}] assistant: ${reply}\n`);
    manager.syncAll(user, reply); // `brv curate` runs in the background
    await manager.flushPending(30_000); // a demo waits for the curate; an agent would not
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

export async function runByteroverDemo(options: DemoOptions): Promise<DemoResult> {
  const real = options.env.BRV_EXAMPLE_BRV;
  const fake = real ? undefined : await startFakeBrv();
  const brvPath = real ?? fake!.path;
  options.write(
    real ? `Live mode: the brv CLI at ${real}.\n` : `Offline mode: the fake brv at ${brvPath}.\n`,
  );
  try {
    const first = await session('session-1', options, brvPath, SESSION_1);
    await first.manager.shutdownAll();

    // Session 2 asks in its first turn, so the answer is the one turn 1 waits for.
    const second = await session('session-2', options, brvPath, [SESSION_2[1]!, SESSION_2[0]!]);
    const search = await second.manager.handleToolCall('brv_search', { query: 'billing deploy Tuesday' });
    options.write(`[session-2] brv_search: ${search}\n`);
    await second.manager.shutdownAll();
    return { mode: real ? 'live' : 'fake', recall: second.recalls[0] ?? '', search };
  } finally {
    await fake?.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'byterover-agent-'));
  runByteroverDemo({ home, env: process.env, write: (text) => process.stdout.write(text) })
    .then((result) => process.stdout.write(`\nSession 2 got from memory:\n${result.recall}\n`))
    .finally(() => fs.rmSync(home, { recursive: true, force: true }));
}
