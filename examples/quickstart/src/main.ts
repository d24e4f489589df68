import fs from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createBuiltinProvider, newSessionId } from '@hermes-memory/builtin';
import {
  type LlmClient,
  MemoryManager,
  OpenAICompatibleLlmClient,
  createLlmClientFromEnv,
  loadHermesConfig,
} from '@hermes-memory/core';
import { createHolographicProvider } from '@hermes-memory/holographic';
import { type FakeOpenAI, startFakeOpenAI } from '@hermes-memory/testkit/fake-openai';
import { AgentSession, type AgentEvents } from './agent-loop';
import { type Presenter, type SummaryLine, createPresenter } from './present';
import { CONVERSATION, scriptedModel } from './scripted-model';

const BASE_INSTRUCTIONS =
  'You are a concise assistant with long-term memory. Save durable user facts with the memory tool, ' +
  'project facts with fact_store, and use session_search to recall earlier conversations.';

export interface QuickstartResult {
  home: string;
  mode: 'scripted' | 'live';
  sessionIds: [string, string];
  /** Session 2's system prompt (frozen snapshot + provider guidance). */
  systemPrompt: string;
  /** Session 2's fenced `<memory-context>` block for the question. */
  recall: string;
  /** Raw JSON answer of session 2's session_search call ("" when the model did not call it). */
  sessionSearch: string;
  answer: string;
}

export interface QuickstartOptions {
  home?: string;
  env?: Readonly<Record<string, string | undefined>>;
  write?: (text: string) => void;
  color?: boolean;
}

/** Open one session: a fresh manager with builtin + holographic over the same home. */
async function openSession(home: string, llm: LlmClient, events: AgentEvents): Promise<AgentSession> {
  const t = performance.now();
  const manager = new MemoryManager();
  manager.addProvider(createBuiltinProvider());
  manager.addProvider(createHolographicProvider());
  const sessionId = newSessionId();
  await manager.initializeAll(sessionId, {
    hermesHome: home,
    platform: 'cli',
    config: loadHermesConfig(home),
    llm,
  });
  const systemPrompt = `${BASE_INSTRUCTIONS}\n\n${manager.buildSystemPrompt()}`;
  events.step?.('initializeAll + buildSystemPrompt', performance.now() - t, 'builtin + holographic');
  return new AgentSession(manager, llm, sessionId, systemPrompt, events);
}

export async function runQuickstart(options: QuickstartOptions = {}): Promise<QuickstartResult> {
  const env = options.env ?? process.env;
  const write = options.write ?? ((s: string) => process.stdout.write(s));
  const color = options.color ?? (process.stdout.isTTY === true && !env.NO_COLOR);
  const ui: Presenter = createPresenter(write, color);

  const homeIsTemp = !options.home && !env.HERMES_HOME;
  const home = path.resolve(
    options.home ?? env.HERMES_HOME ?? fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-quickstart-')),
  );
  fs.mkdirSync(home, { recursive: true, mode: 0o700 });

  let fake: FakeOpenAI | undefined;
  let llm: LlmClient | undefined = createLlmClientFromEnv(env);
  const mode = llm ? 'live' : 'scripted';
  if (!llm) {
    fake = await startFakeOpenAI({ script: scriptedModel, model: 'scripted-model' });
    llm = new OpenAICompatibleLlmClient({
      baseURL: fake.url,
      model: 'scripted-model',
      apiKey: 'not-a-real-key',
    });
  }
  ui.banner({
    mode,
    model: llm.model,
    baseURL: fake?.url ?? env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
    home,
    homeIsTemp,
  });

  let recall = '';
  let sessionSearch = '';
  // What session 1's tool calls stored (a live model decides for itself whether to call them).
  let inSession1 = true;
  const saved = { memory: 0, fact_store: 0 };
  const events: AgentEvents = {
    step: (label, ms, detail) => ui.step(label, ms, detail),
    recall: (block, ms) => {
      recall = block;
      ui.step('prefetchAll (recall)', ms, block ? `${block.length} chars recalled` : 'nothing recalled yet');
      if (block) ui.modelSees('recall appended to the user message (API copy only)', block);
    },
    toolCall: (name, args, result, ms) => {
      if (name === 'session_search') sessionSearch = result;
      if (inSession1 && (name === 'memory' || name === 'fact_store') && stored(result)) saved[name] += 1;
      ui.toolCall(name, args, result, ms);
    },
    assistant: (text) => ui.assistant(text),
  };

  try {
    ui.section(
      'Session 1',
      'The user shares facts and preferences; the agent saves them with its memory tools.',
    );
    const s1 = await openSession(home, llm, events);
    for (const line of CONVERSATION.session1) {
      ui.user(line);
      await s1.send(line);
    }
    await s1.end();
    inSession1 = false;

    ui.section(
      'Session 2',
      'A fresh manager and fresh providers over the same home: what does the agent remember?',
    );
    const s2 = await openSession(home, llm, events);
    ui.modelSees('system prompt (frozen memory snapshot + guidance)', s2.systemPrompt);
    let answer = '';
    for (const line of CONVERSATION.session2) {
      ui.user(line);
      answer = await s2.send(line);
    }
    await s2.end();

    ui.summary(
      whatHappened({ saved, systemPrompt: s2.systemPrompt, recall, sessionSearch, session1: s1.sessionId }),
    );
    ui.note(`\nExplore what was stored:  ${cliCommand()} status --home ${home}`);
    ui.note(`                          ${cliCommand()} sessions list --home ${home}`);
    return {
      home,
      mode,
      sessionIds: [s1.sessionId, s2.sessionId],
      systemPrompt: s2.systemPrompt,
      recall,
      sessionSearch,
      answer,
    };
  } finally {
    await fake?.close();
  }
}

/** Whether a memory / fact_store answer says something was stored. */
function stored(result: string): boolean {
  try {
    const parsed = JSON.parse(result) as { success?: unknown; fact_id?: unknown; staged?: unknown };
    return (parsed.success === true && parsed.staged !== true) || typeof parsed.fact_id === 'number';
  } catch {
    return false;
  }
}

/** The closing checklist, from what this run did — never a claim the run did not bear out. */
function whatHappened(run: {
  saved: { memory: number; fact_store: number };
  systemPrompt: string;
  recall: string;
  sessionSearch: string;
  session1: string;
}): SummaryLine[] {
  const parts = [
    ...(run.saved.memory > 0 ? ['a user-profile entry (memory tool → USER.md)'] : []),
    ...(run.saved.fact_store > 0 ? ['a project fact (fact_store → memory_store.db)'] : []),
  ];
  let found: string[] | undefined;
  try {
    const parsed = JSON.parse(run.sessionSearch) as { results?: Array<{ session_id?: unknown }> };
    found = (parsed.results ?? []).map((r) => String(r.session_id));
  } catch {
    found = undefined;
  }
  return [
    parts.length > 0
      ? { ok: true, text: `Session 1 saved ${parts.join(' and ')}.` }
      : { ok: false, text: 'Session 1 saved nothing: the model called neither memory nor fact_store.' },
    run.systemPrompt.includes('USER PROFILE (who the user is)')
      ? { ok: true, text: 'Session 2 started with the user profile frozen into its system prompt.' }
      : { ok: false, text: 'Session 2 started without a user profile (USER.md is empty).' },
    run.recall
      ? { ok: true, text: 'The question pulled a stored fact back as a fenced <memory-context> block.' }
      : { ok: false, text: 'Nothing was recalled for the question (no stored fact was relevant).' },
    found === undefined
      ? { ok: false, text: 'session_search was not called in session 2.' }
      : found.includes(run.session1)
        ? { ok: true, text: `session_search found session 1 (${run.session1}) in state.db.` }
        : found.length > 0
          ? { ok: true, text: `session_search found an earlier session (${found[0]}) in state.db.` }
          : { ok: false, text: 'session_search found no earlier session.' },
  ];
}

const USAGE = `Usage: npm run quickstart [-- --home <dir>]

Plays two sessions of a small agent with builtin + holographic memory. Without OPENAI_API_KEY a
scripted model plays the model's part; set OPENAI_API_KEY (and optionally OPENAI_BASE_URL,
OPENAI_MODEL) to use a real OpenAI-compatible model. --home (or HERMES_HOME) keeps the memory in
that folder; otherwise a temporary folder is used.`;

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  let values: { home?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { home: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(
      `quickstart: ${error instanceof Error ? error.message.split('. ')[0] : String(error)}.\n`,
    );
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    await runQuickstart(values.home ? { home: values.home } : {});
    return 0;
  } catch (error) {
    process.stderr.write(`quickstart: ${error instanceof Error ? error.message : String(error)}\n`);
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
