import type { BuiltinProvider } from '@hermes-memory/builtin';
import type { MemoryManager } from '@hermes-memory/core';
import { generateText, type ModelMessage, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryHooks, memoryMiddleware, memoryTools, recordTurn, toChatMessages } from '../src';
import { cleanup, home, openSession, streamedText, textAnswer, toolCalls } from './helpers';

afterEach(cleanup);

/** What the builtin provider recorded in state.db, once every queue (the manager's and its own) drained. */
async function storedTranscript(
  manager: MemoryManager,
  sessionId: string,
): Promise<Array<Record<string, unknown>>> {
  expect(await manager.flushPending(10_000)).toBe(true);
  const builtin = manager.getProvider('builtin') as BuiltinProvider;
  return builtin.sessionStore!.getMessagesAsConversation(sessionId);
}

describe('createMemoryHooks / recordTurn', () => {
  it('onFinish syncs the clean turn (tool calls included) and queues the next prefetch', async () => {
    const h = home();
    const { manager, sessionId } = await openSession(h.path, { holographic: true });
    // Something to recall, so the model's copy of the user message really carries a fence.
    await manager.handleToolCall('fact_store', {
      action: 'add',
      content: 'Deploys run on Tuesdays at 14:00 UTC.',
    });
    const queue = vi.spyOn(manager, 'queuePrefetchAll');
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCalls({
          toolName: 'memory',
          input: { action: 'add', target: 'user', content: 'Deploy owner: Maya.' },
        }),
        textAnswer('Noted, deploys are on Tuesdays.'),
      ],
    });
    const userText = 'I own the Tuesday deploys.';
    await generateText({
      model: wrapLanguageModel({ model, middleware: memoryMiddleware(manager) }),
      tools: memoryTools(manager),
      prompt: userText,
      stopWhen: stepCountIs(3),
      ...createMemoryHooks(manager, { userText }),
    });
    expect(JSON.stringify(model.doGenerateCalls[0]!.prompt)).toContain('<memory-context>');

    const stored = await storedTranscript(manager, sessionId);
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(stored[0]!.content).toBe(userText);
    expect(stored[1]!.tool_calls).toEqual([
      {
        id: 'call-1',
        type: 'function',
        function: {
          name: 'memory',
          arguments: JSON.stringify({ action: 'add', target: 'user', content: 'Deploy owner: Maya.' }),
        },
      },
    ]);
    expect(stored[2]).toMatchObject({ tool_call_id: 'call-1' });
    expect(JSON.parse(String(stored[2]!.content))).toMatchObject({ success: true });
    expect(stored[3]!.content).toBe('Noted, deploys are on Tuesdays.');
    expect(JSON.stringify(stored)).not.toContain('memory-context');
    expect(queue).toHaveBeenCalledWith(userText, {});
  });

  it('streamText onFinish records the scrubbed answer; a later session finds it with session_search', async () => {
    const h = home();
    const first = await openSession(h.path);
    const model = new MockLanguageModelV3({
      doStream: streamedText([
        'The canary ',
        'region is ',
        'eu-west.\n<memory-context>\nleak\n</memory-context>\n',
      ]),
    });
    const userText = 'Which region is the canary in?';
    const result = streamText({
      model: wrapLanguageModel({ model, middleware: memoryMiddleware(first.manager) }),
      prompt: userText,
      ...createMemoryHooks(first.manager, { userText }),
    });
    await result.consumeStream();
    const stored = await storedTranscript(first.manager, first.sessionId);
    expect(stored.map((m) => [m.role, m.content])).toEqual([
      ['user', userText],
      ['assistant', 'The canary region is eu-west.\n\n'],
    ]);
    await first.close();

    const second = await openSession(h.path);
    const found = JSON.parse(
      await second.manager.handleToolCall('session_search', { query: 'canary region' }),
    ) as {
      success: boolean;
      results: Array<{ session_id: string }>;
    };
    expect(found.success).toBe(true);
    expect(found.results.map((r) => r.session_id)).toContain(first.sessionId);
  });

  it('recordTurn works on an awaited generateText result; prefetchNext: false skips the warm-up', async () => {
    const { manager, sessionId } = await openSession(home().path);
    const queue = vi.spyOn(manager, 'queuePrefetchAll');
    const model = new MockLanguageModelV3({ doGenerate: textAnswer('Blue.') });
    const result = await generateText({ model, prompt: 'Favourite colour?' });
    recordTurn(manager, 'Favourite colour?', result, { prefetchNext: false });
    expect((await storedTranscript(manager, sessionId)).map((m) => m.content)).toEqual([
      'Favourite colour?',
      'Blue.',
    ]);
    expect(queue).not.toHaveBeenCalled();
  });

  it('hooks record a turn once even if onFinish fires twice', async () => {
    const { manager } = await openSession(home().path);
    const sync = vi.spyOn(manager, 'syncAll');
    const hooks = createMemoryHooks(manager, { userText: 'hello there' });
    const event = { text: 'hi', response: { messages: [] } };
    hooks.onFinish(event);
    hooks.onFinish(event);
    expect(sync).toHaveBeenCalledTimes(1);
  });
});

describe('toChatMessages', () => {
  it('maps AI SDK response messages to the OpenAI-style transcript', () => {
    const messages: ModelMessage[] = [
      { role: 'system', content: 'sys' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'thinking' },
          { type: 'text', text: 'Let me check.' },
          { type: 'tool-call', toolCallId: 't1', toolName: 'memory', input: { action: 'add' } },
          { type: 'tool-call', toolCallId: 't2', toolName: 'session_search', input: { query: 'x' } },
          { type: 'tool-call', toolCallId: 't3', toolName: 'x', input: {} },
          { type: 'tool-call', toolCallId: 't4', toolName: 'y', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 't1',
            toolName: 'memory',
            output: { type: 'json', value: { success: true } },
          },
          {
            type: 'tool-result',
            toolCallId: 't2',
            toolName: 'session_search',
            output: { type: 'text', value: 'plain' },
          },
          {
            type: 'tool-result',
            toolCallId: 't3',
            toolName: 'x',
            output: { type: 'execution-denied', reason: 'no' },
          },
          {
            type: 'tool-result',
            toolCallId: 't4',
            toolName: 'y',
            output: {
              type: 'content',
              value: [
                { type: 'text', text: 'c1' },
                { type: 'text', text: 'c2' },
              ],
            },
          },
        ],
      },
      { role: 'assistant', content: 'Done.\n<memory-context>\nrecall\n</memory-context>\n' },
    ];
    expect(toChatMessages(messages)).toEqual([
      { role: 'user', content: 'a\nb' },
      {
        role: 'assistant',
        content: 'Let me check.',
        tool_calls: [
          { id: 't1', type: 'function', function: { name: 'memory', arguments: '{"action":"add"}' } },
          { id: 't2', type: 'function', function: { name: 'session_search', arguments: '{"query":"x"}' } },
          { id: 't3', type: 'function', function: { name: 'x', arguments: '{}' } },
          { id: 't4', type: 'function', function: { name: 'y', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 't1', name: 'memory', content: '{"success":true}' },
      { role: 'tool', tool_call_id: 't2', name: 'session_search', content: 'plain' },
      {
        role: 'tool',
        tool_call_id: 't3',
        name: 'x',
        content: '{"success":false,"error":"Tool execution denied: no"}',
      },
      { role: 'tool', tool_call_id: 't4', name: 'y', content: 'c1\nc2' },
      { role: 'assistant', content: 'Done.\n\n' },
    ]);
  });
});
