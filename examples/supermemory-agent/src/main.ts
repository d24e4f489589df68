import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ChatMessage, MemoryManager, silentLogger } from '@hermes-memory/core';
import { createSupermemoryProvider } from '@hermes-memory/supermemory';
import { FAKE_SUPERMEMORY_KEY, startFakeSupermemory } from '@hermes-memory/supermemory/testing';

/** What the user says in session 1 (a real agent would call a model between turns). */
export const SESSION_1 = [
  { user: 'I am Maya. I deploy the billing service to Fly.io every Tuesday.', assistant: 'Noted, Maya.' },
  { user: 'My team uses pnpm and never npm.', assistant: 'Got it: pnpm only.' },
];
/** An explicit memory session 1 stores through the tool. */
export const EXPLICIT_FACT = 'Maya prefers short answers with code first.';
export const SESSION_2_QUESTION = 'When do I deploy the billing service?';

export interface DemoResult {
  mode: 'fake' | 'live';
  /** What turn 1 of session 2 injected before the model call. */
  recall: string;
  /** supermemory_search's JSON answer for the same question. */
  search: string;
}

/**
 * Two sessions through `MemoryManager`: session 1 has two turns (buffered, then ingested as one
 * conversation at session end) and stores one explicit memory; session 2 (a new manager and
 * provider, as after a restart) recalls them on its first turn. Against the shipped fake unless
 * `SUPERMEMORY_API_KEY` is set (then the real service, or `SUPERMEMORY_BASE_URL`'s).
 */
export async function runDemo(
  options: { env?: Readonly<Record<string, string | undefined>>; write?: (line: string) => void } = {},
): Promise<DemoResult> {
  const env = options.env ?? process.env;
  const say = options.write ?? ((line: string) => console.log(line));
  const live = Boolean(env.SUPERMEMORY_API_KEY);
  const fake = live ? undefined : await startFakeSupermemory();
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-supermemory-agent-'));
  const settings = fake ? { apiKey: FAKE_SUPERMEMORY_KEY, baseURL: fake.url } : {};
  const containerTag = env.SUPERMEMORY_CONTAINER_TAG ?? 'maya_demo';
  say(
    live
      ? 'Live mode: talking to Supermemory with SUPERMEMORY_API_KEY.'
      : `Offline: the shipped fake Supermemory API at ${fake?.url}.`,
  );

  async function session(id: string): Promise<MemoryManager> {
    const memory = new MemoryManager({ logger: silentLogger });
    memory.addProvider(
      createSupermemoryProvider({ ...settings, containerTag }, { hermesHome: home, env: { ...env } }),
    );
    await memory.initializeAll(id, { hermesHome: home, platform: 'cli', env: { ...env } });
    return memory;
  }

  try {
    const first = await session('session-1');
    const transcript: ChatMessage[] = [];
    let turn = 0;
    for (const { user, assistant } of SESSION_1) {
      await first.onTurnStart(++turn, user);
      await first.prefetchAll(user);
      first.syncAll(user, assistant); // buffered: no network
      transcript.push({ role: 'user', content: user }, { role: 'assistant', content: assistant });
      say(`session 1 › ${user}`);
    }
    say(`session 1 › (tool) ${await first.handleToolCall('supermemory_store', { content: EXPLICIT_FACT })}`);
    await first.onSessionEnd(transcript); // one POST /v4/conversations with the whole session
    await first.shutdownAll();
    if (live) say('(Supermemory extracts memories in the background; recall may lag a few seconds)');

    const second = await session('session-2');
    await second.onTurnStart(1, SESSION_2_QUESTION);
    const recall = await second.prefetchAll(SESSION_2_QUESTION); // turn 1 waits ≤ 3 s
    const search = await second.handleToolCall('supermemory_search', { query: 'billing service deploy' });
    say(`session 2 › ${SESSION_2_QUESTION}`);
    say(recall || '(nothing recalled)');
    await second.shutdownAll();
    return { mode: live ? 'live' : 'fake', recall, search };
  } finally {
    await fake?.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runDemo().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
