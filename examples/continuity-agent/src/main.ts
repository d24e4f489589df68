/**
 * Two sessions of an agent with builtin + continuity memory over one HERMES_HOME:
 *
 * - session 1: the user states a preference and a decision (the agent stores them with
 *   `continuity_add`) and a lesson (a "Lesson learned:" line, stored at session end);
 * - session 2: the preference is pinned in the system prompt (tier 0), a question about API
 *   versioning recalls exactly the decision (the agent hydrates its source), an off-topic question
 *   recalls nothing, and `continuity_explain` shows why.
 *
 * The agent loop is the quickstart's (`examples/quickstart/src/agent-loop.ts`, the part to copy).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createBuiltinProvider, newSessionId } from '@hermes-memory/builtin';
import { createContinuityProvider } from '@hermes-memory/continuity';
import {
  type LlmClient,
  MemoryManager,
  OpenAICompatibleLlmClient,
  createLlmClientFromEnv,
} from '@hermes-memory/core';
import { startFakeOpenAI } from '@hermes-memory/testkit';
import { AgentSession } from '../../quickstart/src/agent-loop';
import { CONVERSATION, scriptedModel } from './scripted-model';

export interface ContinuityExampleResult {
  home: string;
  /** Session 2's system prompt (builtin snapshot + continuity tier 0). */
  systemPrompt: string;
  /** Session 2's recall block for each question ("" when nothing passed the gates). */
  recalls: string[];
  answers: string[];
  /** `continuity_explain` of the off-topic question. */
  explanation: string;
}

async function open(
  home: string,
  llm: LlmClient,
): Promise<{ manager: MemoryManager; session: AgentSession }> {
  const manager = new MemoryManager();
  manager.addProvider(createBuiltinProvider());
  // Lexical retrieval keeps the example deterministic; install @hermes-memory/embeddings for vectors.
  manager.addProvider(createContinuityProvider({ embeddings: false }));
  const sessionId = newSessionId();
  await manager.initializeAll(sessionId, { hermesHome: home, platform: 'cli', llm });
  const system = `You are a concise assistant with durable memory.\n\n${manager.buildSystemPrompt()}`;
  return { manager, session: new AgentSession(manager, llm, sessionId, system) };
}

export async function runContinuityExample(
  options: {
    home?: string;
    env?: Readonly<Record<string, string | undefined>>;
    write?: (t: string) => void;
  } = {},
): Promise<ContinuityExampleResult> {
  const env = options.env ?? process.env;
  const write = options.write ?? ((t: string) => process.stdout.write(t));
  const home = path.resolve(options.home ?? fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-continuity-')));
  let llm = createLlmClientFromEnv(env);
  const fake = llm ? undefined : await startFakeOpenAI({ script: scriptedModel, model: 'scripted-model' });
  llm ??= new OpenAICompatibleLlmClient({
    baseURL: fake!.url,
    model: 'scripted-model',
    apiKey: 'not-a-real-key',
  });
  write(`Hermes Memory — continuity example (${fake ? 'scripted model' : llm.model}), home ${home}\n`);
  try {
    write('\n━━ Session 1 ━━\n');
    const one = await open(home, llm);
    for (const line of CONVERSATION.session1) {
      write(`user  › ${line}\nagent › ${await one.session.send(line)}\n`);
    }
    await one.session.end();

    write('\n━━ Session 2 ━━\n');
    const two = await open(home, llm);
    write(
      `system prompt (continuity part):\n${two.session.systemPrompt.slice(two.session.systemPrompt.indexOf('# Continuity memory'))}\n`,
    );
    const recalls: string[] = [];
    const answers: string[] = [];
    for (const line of CONVERSATION.session2) {
      const recall = await two.manager.prefetchAll(line, { sessionId: two.session.sessionId });
      recalls.push(recall);
      write(`\nuser  › ${line}\nrecall: ${recall ? `\n${recall}` : '(nothing passed the gates)'}\n`);
      answers.push(await two.session.send(line));
      write(`agent › ${answers[answers.length - 1]}\n`);
    }
    const explanation = await two.manager.handleToolCall('continuity_explain', {});
    write(`\ncontinuity_explain (last recall):\n${explanation}\n`);
    await two.session.end();
    return { home, systemPrompt: two.session.systemPrompt, recalls, answers, explanation };
  } finally {
    await fake?.close();
  }
}

const invokedDirectly =
  process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname);
if (invokedDirectly) {
  runContinuityExample({ home: process.env.HERMES_HOME }).catch((error) => {
    process.stderr.write(`continuity example: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
