import fs from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createBuiltinProvider, newSessionId } from '@hermes-memory/builtin';
import { loadHermesConfig, MemoryManager } from '@hermes-memory/core';
import { createHolographicProvider } from '@hermes-memory/holographic';
import { type FakeOpenAI, startFakeOpenAI } from '@hermes-memory/testkit/fake-openai';
import { type AgentEvents, MemoryAgent } from './agent';
import { CONVERSATION, scriptedModel } from './scripted-model';

const INSTRUCTIONS =
  'You are a concise assistant with long-term memory. Save durable facts about the user with the memory ' +
  'tool (target "user"), project facts with fact_store, and use session_search to recall earlier conversations.';

export interface AgentDemoResult {
  home: string;
  mode: 'scripted' | 'live';
  sessionIds: [string, string];
  /** Session 2's memory system prompt (frozen snapshot + guidance) as the middleware adds it. */
  systemPrompt: string;
  /** Session 2's fenced recall for its question. */
  recall: string;
  /** Raw JSON result of session 2's session_search call ("" if the model did not call it). */
  sessionSearch: string;
  answer: string;
  /** The scripted server, when one ran (its recorded requests show exactly what the model received). */
  requests: FakeOpenAI['requests'];
}

export interface AgentDemoOptions {
  home?: string;
  env?: Readonly<Record<string, string | undefined>>;
  write?: (text: string) => void;
}

export async function runAgentDemo(options: AgentDemoOptions = {}): Promise<AgentDemoResult> {
  const env = options.env ?? process.env;
  const write = options.write ?? ((s: string) => process.stdout.write(s));
  const say = (line = '') => write(`${line}\n`);

  const home = path.resolve(
    options.home ?? env.HERMES_HOME ?? fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-ai-sdk-agent-')),
  );
  fs.mkdirSync(home, { recursive: true, mode: 0o700 });

  const live = Boolean(env.OPENAI_API_KEY || env.OPENAI_BASE_URL);
  let fake: FakeOpenAI | undefined;
  if (!live) fake = await startFakeOpenAI({ script: scriptedModel, model: 'scripted-model' });
  const baseURL = fake?.url ?? env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1';
  const modelId = fake ? 'scripted-model' : (env.OPENAI_MODEL ?? 'gpt-4o-mini');
  const provider = createOpenAICompatible({
    name: 'openai-compatible',
    baseURL,
    ...(fake ? { apiKey: 'not-a-real-key' } : env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}),
  });
  const model = provider.chatModel(modelId);

  say(
    live
      ? `Live mode: ${modelId} at ${baseURL} (from OPENAI_BASE_URL / OPENAI_API_KEY).`
      : `Scripted mode: no OPENAI_API_KEY or OPENAI_BASE_URL is set, so the "model" is the testkit's scripted fake\nOpenAI server at ${baseURL}, not a real LLM. Everything else (AI SDK, HTTP, tools, memory) is real.`,
  );
  say(`Memory home: ${home}`);

  let recall = '';
  let sessionSearch = '';
  const events: AgentEvents = {
    recall: (block) => {
      recall = block;
      if (block) say(`  ↳ recall appended to the model's copy of the message:\n${indent(block)}`);
    },
    step: (step) => {
      for (const result of step.toolResults) {
        const output = JSON.stringify(result.output);
        if (result.toolName === 'session_search') sessionSearch = output;
        say(`  ⚙ ${result.toolName}(${JSON.stringify(result.input)}) → ${truncate(output, 160)}`);
      }
    },
  };

  const open = async () => {
    const manager = new MemoryManager();
    manager.addProvider(createBuiltinProvider());
    manager.addProvider(createHolographicProvider());
    const sessionId = newSessionId();
    await manager.initializeAll(sessionId, {
      hermesHome: home,
      platform: 'cli',
      config: loadHermesConfig(home),
    });
    return { manager, sessionId, agent: new MemoryAgent(manager, model, INSTRUCTIONS, events) };
  };

  try {
    say('\n== Session 1: the user introduces themselves; the agent saves what matters ==');
    const s1 = await open();
    for (const line of CONVERSATION.session1) {
      say(`\nuser> ${line}`);
      say(`agent> ${await s1.agent.send(line)}`);
    }
    await s1.agent.end();

    say('\n== Session 2: a new manager over the same home. What does the agent remember? ==');
    const s2 = await open();
    const systemPrompt = s2.manager.buildSystemPrompt();
    say(`  ↳ memory system prompt (frozen snapshot, added by the middleware):\n${indent(systemPrompt)}`);
    let answer = '';
    for (const line of CONVERSATION.session2) {
      say(`\nuser> ${line}`);
      answer = await s2.agent.send(line);
      say(`agent> ${answer}`);
    }
    await s2.agent.end();

    say(`\nExplore what was stored:  ${cliCommand()} status --home ${home}`);
    return {
      home,
      mode: live ? 'live' : 'scripted',
      sessionIds: [s1.sessionId, s2.sessionId],
      systemPrompt,
      recall,
      sessionSearch,
      answer,
      requests: fake?.requests ?? [],
    };
  } finally {
    await fake?.close();
  }
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    │ ${line}`)
    .join('\n');
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const USAGE = `Usage: pnpm --filter @hermes-memory/example-ai-sdk-agent start [-- --home <dir>]

Two sessions of an AI SDK agent (generateText + memoryTools + memoryMiddleware) with builtin +
holographic memory. Without OPENAI_API_KEY / OPENAI_BASE_URL a scripted fake server plays the model;
set them (and OPENAI_MODEL) to use any OpenAI-compatible model. --home (or HERMES_HOME) keeps the
memory in that folder; otherwise a temporary folder is used.`;

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  let values: { home?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { home: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`ai-sdk-agent: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    await runAgentDemo(values.home ? { home: values.home } : {});
    return 0;
  } catch (error) {
    process.stderr.write(`ai-sdk-agent: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

const invokedDirectly =
  process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname);
if (invokedDirectly) {
  main().then((code) => {
    process.exitCode = code;
  });
}

/**
 * This workspace's `hermes-memory`, runnable from any folder. Not `npx hermes-memory`: a clone links
 * no such bin where the user stands, so npx would fetch whatever the registry holds under that name.
 */
export function cliCommand(): string {
  const manifest = createRequire(import.meta.url).resolve('@hermes-memory/cli/package.json');
  const bin = path.join(path.dirname(manifest), 'dist', 'bin.js');
  return `node ${/[\s"'$`\\]/.test(bin) ? JSON.stringify(bin) : bin}`;
}
