import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MemoryManager, silentLogger } from '@hermes-memory/core';
import { createHindsightProvider } from '@hermes-memory/hindsight';
import { FAKE_HINDSIGHT_KEY, startFakeHindsight } from '@hermes-memory/hindsight/testing';

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
  /** hindsight_recall's JSON answer for a question about session 1's explicit memory. */
  toolRecall: string;
  /** Status lines the provider showed ("👁️ Hindsight — saving to memory…"). */
  statuses: string[];
}

/**
 * Two sessions through `MemoryManager`: session 1 has two turns (each retained into the session's
 * document by the background writer) and stores one explicit memory with `hindsight_retain`;
 * session 2 (a new manager and provider, as after a restart) recalls them on its first turn.
 * Against the shipped fake unless `HINDSIGHT_API_KEY` or `HINDSIGHT_API_URL` is set (then the
 * real service, Hindsight Cloud or your own server).
 */
export async function runDemo(
  options: { env?: Readonly<Record<string, string | undefined>>; write?: (line: string) => void } = {},
): Promise<DemoResult> {
  const env = options.env ?? process.env;
  const say = options.write ?? ((line: string) => console.log(line));
  const live = Boolean(env.HINDSIGHT_API_KEY || env.HINDSIGHT_API_URL);
  const fake = live ? undefined : await startFakeHindsight();
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-hindsight-agent-'));
  const statuses: string[] = [];
  const settings = {
    ...(fake ? { apiKey: FAKE_HINDSIGHT_KEY, apiURL: fake.url } : {}),
    bankId: env.HINDSIGHT_BANK_ID ?? 'maya-demo',
    onStatus: (line: string) => statuses.push(line),
  };
  say(
    live
      ? `Live mode: talking to Hindsight at ${env.HINDSIGHT_API_URL ?? 'Hindsight Cloud'}.`
      : `Offline: the shipped fake Hindsight API at ${fake?.url}.`,
  );

  async function session(id: string): Promise<MemoryManager> {
    const memory = new MemoryManager({ logger: silentLogger });
    // HOME inside the temp home: no ~/.hindsight/config.json of yours is read.
    const sessionEnv = { ...env, HOME: home };
    memory.addProvider(createHindsightProvider(settings, { hermesHome: home, env: sessionEnv }));
    await memory.initializeAll(id, { hermesHome: home, platform: 'cli', env: sessionEnv });
    return memory;
  }

  try {
    const first = await session('session-1');
    let turn = 0;
    for (const { user, assistant } of SESSION_1) {
      await first.onTurnStart(++turn, user);
      await first.prefetchAll(user);
      first.syncAll(user, assistant); // queued on the writer: no network on this stack
      first.queuePrefetchAll(user); // next turn's recall, after this retain is visible
      say(`session 1 › ${user}`);
    }
    say(`session 1 › (tool) ${await first.handleToolCall('hindsight_retain', { content: EXPLICIT_FACT })}`);
    await first.shutdownAll(); // drains the writer
    if (live) say('(Hindsight extracts facts in the background; recall may lag a few seconds)');

    const second = await session('session-2');
    await second.onTurnStart(1, SESSION_2_QUESTION);
    const recall = await second.prefetchAll(SESSION_2_QUESTION); // turn 1 waits ≤ 3 s
    const toolRecall = await second.handleToolCall('hindsight_recall', {
      query: 'how does Maya like answers',
    });
    say(`session 2 › ${SESSION_2_QUESTION}`);
    say(recall || '(nothing recalled)');
    await second.shutdownAll();
    return { mode: live ? 'live' : 'fake', recall, toolRecall, statuses };
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
