import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MemoryManager, silentLogger } from '@hermes-memory/core';
import { createMem0Provider, type Mem0Provider } from '@hermes-memory/mem0';
import { type FakeMem0Platform, startFakeMem0Platform } from '@hermes-memory/mem0/testing';

/** What the user says in each session (a real agent would also call a model between turns). */
export const SESSION_1 = [
  { user: 'I am Maya. I deploy the billing service to Fly.io every Tuesday.', assistant: 'Noted, Maya.' },
  { user: 'My team uses pnpm and never npm.', assistant: 'Got it: pnpm only.' },
];
export const SESSION_2_QUESTION = 'When do I deploy the billing service?';

export interface DemoResult {
  mode: 'fake' | 'live';
  /** What turn 1 of session 2 injected before the model call. */
  recall: string;
  /** mem0_search's JSON answer for the same question. */
  search: string;
}

/**
 * Two sessions through `MemoryManager`: session 1 syncs two turns, session 2 (a new manager and a
 * new provider, as after a restart) recalls them on its first turn. Against the shipped fake of the
 * Mem0 Platform unless `MEM0_API_KEY` is set (then the real Platform, or `MEM0_HOST`'s server).
 */
export async function runDemo(
  options: { env?: Readonly<Record<string, string | undefined>>; write?: (line: string) => void } = {},
): Promise<DemoResult> {
  const env = options.env ?? process.env;
  const say = options.write ?? ((line: string) => console.log(line));
  const live = Boolean(env.MEM0_API_KEY || env.MEM0_HOST);
  let fake: FakeMem0Platform | undefined;
  if (!live) fake = await startFakeMem0Platform({ apiKey: 'demo-key' });
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-mem0-agent-'));
  const settings = fake ? { apiKey: 'demo-key', platformURL: fake.url } : {};
  const userId = env.MEM0_USER_ID ?? 'maya-demo';
  say(
    live
      ? 'Live mode: talking to Mem0 with MEM0_API_KEY / MEM0_HOST.'
      : `Offline: the shipped fake Mem0 Platform at ${fake!.url}.`,
  );

  async function session(id: string): Promise<{ memory: MemoryManager; provider: Mem0Provider }> {
    const provider = createMem0Provider({ ...settings, userId });
    const memory = new MemoryManager({ logger: silentLogger });
    memory.addProvider(provider);
    await memory.initializeAll(id, { hermesHome: home, platform: 'cli', env: { ...env } });
    return { memory, provider };
  }

  try {
    const first = await session('session-1');
    let turn = 0;
    for (const { user, assistant } of SESSION_1) {
      await first.memory.onTurnStart(++turn, user);
      await first.memory.prefetchAll(user);
      first.memory.syncAll(user, assistant); // returns at once; Mem0 extracts the facts
      say(`session 1 › ${user}`);
    }
    await first.memory.shutdownAll(); // waits for the queued writes (within its deadline)
    if (live) say('(the Platform extracts facts in the background; recall may lag a few seconds)');

    const second = await session('session-2');
    await second.memory.onTurnStart(1, SESSION_2_QUESTION);
    const recall = await second.memory.prefetchAll(SESSION_2_QUESTION); // turn 1 waits ≤ 3 s
    const search = await second.memory.handleToolCall('mem0_search', { query: 'billing service deploy' });
    say(`session 2 › ${SESSION_2_QUESTION}`);
    say(recall || '(nothing recalled)');
    await second.memory.shutdownAll();
    return { mode: live ? 'live' : 'fake', recall, search };
  } finally {
    await fake?.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.env.MEM0_TELEMETRY ??= 'false';
  runDemo().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
