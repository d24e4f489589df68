import { createBuiltinProvider, newSessionId } from '@hermes-memory/builtin';
import { MemoryManager } from '@hermes-memory/core';
import { createHolographicProvider } from '@hermes-memory/holographic';
import { type TempHermesHome, tempHermesHome } from '@hermes-memory/testkit';
import type { LanguageModelMiddleware } from 'ai';
import { convertArrayToReadableStream } from 'ai/test';

type DoGenerate = NonNullable<LanguageModelMiddleware['wrapGenerate']>;
type GenerateResult = Awaited<ReturnType<DoGenerate>>;
type StreamResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapStream']>>>;
export type CallOptions = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params'];
export type StreamPart = StreamResult['stream'] extends ReadableStream<infer P> ? P : never;

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A model answer with text. */
export function textAnswer(text: string): GenerateResult {
  return {
    content: [{ type: 'text', text }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage,
    warnings: [],
  };
}

/** A model answer that calls tools (inputs are JSON-encoded, as providers deliver them). */
export function toolCalls(...calls: Array<{ toolName: string; input: unknown }>): GenerateResult {
  return {
    content: calls.map((call, i) => ({
      type: 'tool-call' as const,
      toolCallId: `call-${i + 1}`,
      toolName: call.toolName,
      input: typeof call.input === 'string' ? call.input : JSON.stringify(call.input),
    })),
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage,
    warnings: [],
  };
}

/** A streamed answer whose text arrives in the given deltas. */
export function streamedText(deltas: readonly string[]): StreamResult {
  const parts: StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't1' },
    ...deltas.map((delta): StreamPart => ({ type: 'text-delta', id: 't1', delta })),
    { type: 'text-end', id: 't1' },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
  ];
  return { stream: convertArrayToReadableStream(parts) };
}

/** A streamed tool call. */
export function streamedToolCall(toolName: string, input: unknown): StreamResult {
  const parts: StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'tool-call', toolCallId: 'call-s1', toolName, input: JSON.stringify(input) },
    { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
  ];
  return { stream: convertArrayToReadableStream(parts) };
}

/** Every text of the prompt's system messages. */
export function systemText(options: CallOptions): string {
  return options.prompt.flatMap((m) => (m.role === 'system' ? [m.content] : [])).join('\n\n');
}

/** The text of the last user message the model received. */
export function lastUserText(options: CallOptions): string {
  for (let i = options.prompt.length - 1; i >= 0; i--) {
    const m = options.prompt[i]!;
    if (m.role === 'user') return m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
  }
  return '';
}

/** How many messages of the prompt, anywhere, contain the text. */
export function countInPrompt(options: CallOptions, needle: string): number {
  return options.prompt.filter((m) =>
    typeof m.content === 'string'
      ? m.content.includes(needle)
      : m.content.some((p) => p.type === 'text' && p.text.includes(needle)),
  ).length;
}

export interface Session {
  manager: MemoryManager;
  sessionId: string;
  close(): Promise<void>;
}

const cleanups: Array<() => Promise<void> | void> = [];

/** Run registered cleanups (in reverse); call from afterEach. */
export async function cleanup(): Promise<void> {
  for (const c of cleanups.splice(0).reverse()) await c();
}

export function home(): TempHermesHome {
  const h = tempHermesHome('hm-ai-sdk-test-');
  cleanups.push(() => h.cleanup());
  return h;
}

/** A real MemoryManager with the real builtin (+ optionally holographic) provider over `hermesHome`. */
export async function openSession(
  hermesHome: string,
  options: { holographic?: boolean } = {},
): Promise<Session> {
  const manager = new MemoryManager();
  manager.addProvider(createBuiltinProvider());
  if (options.holographic) manager.addProvider(createHolographicProvider({ hrrEnabled: false }));
  const sessionId = newSessionId();
  await manager.initializeAll(sessionId, { hermesHome, platform: 'cli', env: {} });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await manager.shutdownAll();
  };
  cleanups.push(close);
  return { manager, sessionId, close };
}
