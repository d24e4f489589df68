import { MEMORY_CONTEXT_OPEN } from '@hermes-memory/core';
import { generateText, type ModelMessage, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { memoryMiddleware, memoryTools, type RecallEvent } from '../src';
import {
  cleanup,
  countInPrompt,
  home,
  lastUserText,
  openSession,
  streamedText,
  streamedToolCall,
  systemText,
  textAnswer,
  toolCalls,
} from './helpers';

afterEach(cleanup);

const FACT = 'The billing service deploys to Fly.io every Tuesday at 14:00 UTC.';

/** Session 1 of a home: the model saves a profile entry (memory) and a project fact (fact_store). */
async function seedMemory(hermesHome: string): Promise<void> {
  const { manager, close } = await openSession(hermesHome, { holographic: true });
  const model = new MockLanguageModelV3({
    doGenerate: [
      toolCalls(
        { toolName: 'memory', input: { action: 'add', target: 'user', content: 'Maya, backend engineer.' } },
        {
          toolName: 'fact_store',
          input: { action: 'add', content: FACT, category: 'project', tags: 'deploy' },
        },
      ),
      textAnswer('Saved.'),
    ],
  });
  const result = await generateText({
    model: wrapLanguageModel({ model, middleware: memoryMiddleware(manager) }),
    tools: memoryTools(manager),
    prompt: "I'm Maya, a backend engineer. Our billing service deploys to Fly.io on Tuesdays at 14:00 UTC.",
    stopWhen: stepCountIs(3),
  });
  const [saved, fact] = result.steps[0]!.toolResults.map((r) => r.output as Record<string, unknown>);
  expect(saved).toMatchObject({ success: true, target: 'user' });
  expect(fact).toMatchObject({ status: 'added' });
  await close();
}

describe('memoryMiddleware — system prompt', () => {
  it('adds the frozen snapshot once, next to the caller’s own system prompt, on every step', async () => {
    const h = home();
    await seedMemory(h.path);
    const { manager } = await openSession(h.path);
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCalls({ toolName: 'session_search', input: { query: 'billing' } }),
        textAnswer('Hi Maya.'),
      ],
    });
    await generateText({
      model: wrapLanguageModel({ model, middleware: memoryMiddleware(manager) }),
      tools: memoryTools(manager),
      system: 'You are a concise assistant.',
      prompt: 'Who am I?',
      stopWhen: stepCountIs(3),
    });
    expect(model.doGenerateCalls).toHaveLength(2);
    for (const call of model.doGenerateCalls) {
      const system = systemText(call);
      expect(system.startsWith('You are a concise assistant.')).toBe(true);
      expect(system).toContain('Maya, backend engineer.');
      expect(system.split('Maya, backend engineer.')).toHaveLength(2);
      expect(call.prompt.filter((m) => m.role === 'system')).toHaveLength(1);
    }
  });

  it('does not add the block again when the caller already put it in the system prompt', async () => {
    const h = home();
    await seedMemory(h.path);
    const { manager } = await openSession(h.path);
    const model = new MockLanguageModelV3({ doGenerate: textAnswer('ok') });
    await generateText({
      model: wrapLanguageModel({ model, middleware: memoryMiddleware(manager) }),
      system: `Base.\n\n${manager.buildSystemPrompt()}`,
      prompt: 'Who am I?',
    });
    expect(systemText(model.doGenerateCalls[0]!).split('Maya, backend engineer.')).toHaveLength(2);
  });

  it('inserts a system message when the caller has none', async () => {
    const h = home();
    await seedMemory(h.path);
    const { manager } = await openSession(h.path);
    const model = new MockLanguageModelV3({ doGenerate: textAnswer('ok') });
    await generateText({
      model: wrapLanguageModel({ model, middleware: memoryMiddleware(manager, { recall: false }) }),
      prompt: 'Who am I?',
    });
    const prompt = model.doGenerateCalls[0]!.prompt;
    expect(prompt[0]!.role).toBe('system');
    expect(systemText(model.doGenerateCalls[0]!)).toContain('Maya, backend engineer.');
  });
});

describe('memoryMiddleware — recall', () => {
  it('appends the fenced recall to the last user message, once per turn across a tool loop', async () => {
    const h = home();
    await seedMemory(h.path);
    const { manager } = await openSession(h.path, { holographic: true });
    const prefetch = vi.spyOn(manager, 'prefetchAll');
    const turnStart = vi.spyOn(manager, 'onTurnStart');
    const recalls: RecallEvent[] = [];
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCalls({ toolName: 'session_search', input: { query: 'billing deploy' } }),
        textAnswer('Tuesdays at 14:00 UTC.'),
        textAnswer('Fly.io.'),
      ],
    });
    const wrapped = wrapLanguageModel({
      model,
      middleware: memoryMiddleware(manager, { onRecall: (e) => recalls.push(e) }),
    });
    const messages: ModelMessage[] = [
      { role: 'user', content: 'Hello again.' },
      { role: 'assistant', content: 'Hi!' },
      { role: 'user', content: 'When does the billing service deploy?' },
    ];
    const before = structuredClone(messages);

    const first = await generateText({
      model: wrapped,
      tools: memoryTools(manager),
      messages,
      stopWhen: stepCountIs(4),
    });

    // Two model calls (tool call, then answer), ONE prefetch.
    expect(model.doGenerateCalls).toHaveLength(2);
    expect(prefetch).toHaveBeenCalledTimes(1);
    expect(prefetch.mock.calls[0]![0]).toBe('When does the billing service deploy?');
    for (const call of model.doGenerateCalls) {
      const user = lastUserText(call);
      expect(user.startsWith(`When does the billing service deploy?\n\n${MEMORY_CONTEXT_OPEN}\n`)).toBe(true);
      expect(user).toContain(FACT);
      expect(user.endsWith('</memory-context>')).toBe(true);
      // Only the current user message carries recall; earlier turns stay as they were.
      expect(countInPrompt(call, MEMORY_CONTEXT_OPEN)).toBe(1);
    }
    expect(recalls).toHaveLength(1);
    expect(recalls[0]).toMatchObject({ userText: 'When does the billing service deploy?', turn: 1 });
    expect(recalls[0]!.block).toContain(FACT);
    // The caller's messages are untouched, and nothing fenced reaches the response messages.
    expect(messages).toEqual(before);
    expect(JSON.stringify(first.response.messages)).not.toContain('memory-context');

    // The next user turn recalls again (a new user message ends the prompt).
    await generateText({
      model: wrapped,
      tools: memoryTools(manager),
      messages: [
        ...messages,
        ...first.response.messages,
        { role: 'user', content: 'Where does it deploy to?' },
      ],
      stopWhen: stepCountIs(4),
    });
    expect(prefetch).toHaveBeenCalledTimes(2);
    expect(turnStart.mock.calls.map((c) => [c[0], c[1]])).toEqual([
      [1, 'When does the billing service deploy?'],
      [2, 'Where does it deploy to?'],
    ]);
    const third = model.doGenerateCalls[2]!;
    expect(lastUserText(third)).toContain(FACT);
    expect(countInPrompt(third, MEMORY_CONTEXT_OPEN)).toBe(1);
  });

  it('a repeated identical prompt in a new call is a new turn and recalls again', async () => {
    const h = home();
    await seedMemory(h.path);
    const { manager } = await openSession(h.path, { holographic: true });
    const prefetch = vi.spyOn(manager, 'prefetchAll');
    const model = new MockLanguageModelV3({ doGenerate: textAnswer('Tuesday.') });
    const wrapped = wrapLanguageModel({ model, middleware: memoryMiddleware(manager) });
    await generateText({ model: wrapped, prompt: 'When does billing deploy?' });
    await generateText({ model: wrapped, prompt: 'When does billing deploy?' });
    expect(prefetch).toHaveBeenCalledTimes(2);
  });

  it('skips recall for trivial prompts', async () => {
    const h = home();
    await seedMemory(h.path);
    const { manager } = await openSession(h.path, { holographic: true });
    const prefetch = vi.spyOn(manager, 'prefetchAll');
    const model = new MockLanguageModelV3({ doGenerate: textAnswer('👍') });
    await generateText({
      model: wrapLanguageModel({ model, middleware: memoryMiddleware(manager) }),
      prompt: 'ok',
    });
    expect(prefetch).not.toHaveBeenCalled();
    expect(lastUserText(model.doGenerateCalls[0]!)).toBe('ok');
  });

  it('streamText: recall once across streamed steps', async () => {
    const h = home();
    await seedMemory(h.path);
    const { manager } = await openSession(h.path, { holographic: true });
    const prefetch = vi.spyOn(manager, 'prefetchAll');
    const model = new MockLanguageModelV3({
      doStream: [streamedToolCall('session_search', { query: 'deploy' }), streamedText(['Tues', 'day.'])],
    });
    const result = streamText({
      model: wrapLanguageModel({ model, middleware: memoryMiddleware(manager) }),
      tools: memoryTools(manager),
      prompt: 'When does the billing service deploy?',
      stopWhen: stepCountIs(3),
    });
    expect(await result.text).toBe('Tuesday.');
    expect(model.doStreamCalls).toHaveLength(2);
    expect(prefetch).toHaveBeenCalledTimes(1);
    for (const call of model.doStreamCalls) expect(lastUserText(call)).toContain(FACT);
  });
});

describe('memoryMiddleware — output scrubbing', () => {
  const ECHO = [
    'Sure. ',
    'Here is what I know:\n<memo',
    'ry-context>\n[System note: recalled]\nsecret',
    ' stuff\n</memory-con',
    'text>\nDeploys are on Tuesdays.',
  ];

  it('streamText: an echoed <memory-context> span (split across deltas) never reaches the text stream', async () => {
    const { manager } = await openSession(home().path);
    const model = new MockLanguageModelV3({ doStream: streamedText(ECHO) });
    const result = streamText({
      model: wrapLanguageModel({ model, middleware: memoryMiddleware(manager) }),
      prompt: 'When are deploys?',
    });
    let streamed = '';
    for await (const delta of result.textStream) streamed += delta;
    expect(streamed).not.toMatch(/memory-context|secret|System note/);
    expect(streamed).toContain('Sure. Here is what I know:');
    expect(streamed).toContain('Deploys are on Tuesdays.');
    expect(await result.text).toBe(streamed);
  });

  it('generateText: the same span is removed from the final text', async () => {
    const { manager } = await openSession(home().path);
    const model = new MockLanguageModelV3({ doGenerate: textAnswer(ECHO.join('')) });
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: memoryMiddleware(manager) }),
      prompt: 'When are deploys?',
    });
    expect(result.text).not.toMatch(/memory-context|secret/);
    expect(result.text).toContain('Deploys are on Tuesdays.');
  });

  it('scrubOutput: false leaves the text alone; an inline mention is never censored', async () => {
    const { manager } = await openSession(home().path);
    const model = new MockLanguageModelV3({ doGenerate: textAnswer(ECHO.join('')) });
    const raw = await generateText({
      model: wrapLanguageModel({ model, middleware: memoryMiddleware(manager, { scrubOutput: false }) }),
      prompt: 'x y z',
    });
    expect(raw.text).toBe(ECHO.join(''));

    const inline = 'The fence tag is <memory-context> in the prompt.';
    const model2 = new MockLanguageModelV3({
      doStream: streamedText([inline.slice(0, 20), inline.slice(20)]),
    });
    const result = streamText({
      model: wrapLanguageModel({ model: model2, middleware: memoryMiddleware(manager) }),
      prompt: 'What is the fence tag?',
    });
    expect(await result.text).toBe(inline);
  });
});
