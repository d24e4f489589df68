import { generateText, wrapLanguageModel } from 'ai';
import { convertArrayToReadableStream, convertReadableStreamToArray, MockLanguageModelV3 } from 'ai/test';
import { buildMemoryContextBlock, MEMORY_CONTEXT_NOTE } from '@hermes-memory/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createContextScrubStream, memoryMiddleware, scrubText } from '../src';
import { type CallOptions, cleanup, home, openSession, type StreamPart, textAnswer } from './helpers';

afterEach(cleanup);

async function run(parts: StreamPart[]): Promise<StreamPart[]> {
  return convertReadableStreamToArray(
    convertArrayToReadableStream(parts).pipeThrough(createContextScrubStream()),
  );
}

const visible = (parts: StreamPart[], type: 'text-delta' | 'reasoning-delta', id: string) =>
  parts.flatMap((p) => (p.type === type && p.id === id ? [p.delta] : [])).join('');

describe('createContextScrubStream', () => {
  it('scrubs interleaved text and reasoning blocks independently, keeping every other part in order', async () => {
    const out = await run([
      { type: 'stream-start', warnings: [] },
      { type: 'reasoning-start', id: 'r' },
      { type: 'text-start', id: 'a' },
      { type: 'reasoning-delta', id: 'r', delta: 'think\n<memory-' },
      { type: 'text-delta', id: 'a', delta: 'Hello\n<memory-context>\nhid' },
      { type: 'reasoning-delta', id: 'r', delta: 'context>\nsecret\n</memory-context>\ndone' },
      { type: 'text-delta', id: 'a', delta: 'den\n</memory-context>\nWorld' },
      { type: 'reasoning-end', id: 'r' },
      { type: 'text-end', id: 'a' },
      { type: 'tool-call', toolCallId: 'c', toolName: 'memory', input: '{}' },
    ]);
    expect(visible(out, 'text-delta', 'a')).toBe('Hello\n\nWorld');
    expect(visible(out, 'reasoning-delta', 'r')).toBe('think\n\ndone');
    expect(out.map((p) => p.type).filter((t) => !t.endsWith('-delta'))).toEqual([
      'stream-start',
      'reasoning-start',
      'text-start',
      'reasoning-end',
      'text-end',
      'tool-call',
    ]);
  });

  it('releases a held-back tail before the block ends, and at the end of a stream without text-end', async () => {
    const withEnd = await run([
      { type: 'text-start', id: 'a' },
      { type: 'text-delta', id: 'a', delta: 'a < b and <memo' },
      { type: 'text-end', id: 'a' },
    ]);
    expect(visible(withEnd, 'text-delta', 'a')).toBe('a < b and <memo');
    expect(withEnd.at(-1)!.type).toBe('text-end');

    const cut = await run([{ type: 'text-delta', id: 'x', delta: 'tail <memory-con' }]);
    expect(visible(cut, 'text-delta', 'x')).toBe('tail <memory-con');
  });

  it('drops a recall block that never closes, but never hides prose after a bare opener', async () => {
    const out = await run([
      { type: 'text-start', id: 'a' },
      { type: 'text-delta', id: 'a', delta: `ok\n<memory-context>\n${MEMORY_CONTEXT_NOTE}\n\nnever closed` },
      { type: 'text-end', id: 'a' },
    ]);
    expect(visible(out, 'text-delta', 'a')).toBe('ok\n');
    const prose = 'The tag goes first:\n<memory-context>\nthen the recalled facts.';
    const shown = await run([
      { type: 'text-start', id: 'b' },
      ...[...prose].map((delta) => ({ type: 'text-delta' as const, id: 'b', delta })),
      { type: 'text-end', id: 'b' },
    ]);
    expect(visible(shown, 'text-delta', 'b')).toBe(prose);
  });

  it('removes a block that starts in the middle of a line (issue #20)', async () => {
    const block = buildMemoryContextBlock('the deploy key is in the vault');
    const text = `Sure! ${block}\nDeploys are on Tuesdays.`;
    const out = await run([
      { type: 'text-start', id: 'a' },
      ...[text.slice(0, 9), text.slice(9, 40), text.slice(40)].map((delta) => ({
        type: 'text-delta' as const,
        id: 'a',
        delta,
      })),
      { type: 'text-end', id: 'a' },
    ]);
    expect(visible(out, 'text-delta', 'a')).toBe('Sure! \nDeploys are on Tuesdays.');
    expect(scrubText(text)).toBe('Sure! \nDeploys are on Tuesdays.');
  });

  it('scrubText handles a whole text', () => {
    expect(scrubText('a\n<memory-context>\nx\n</memory-context>\nb')).toBe('a\n\nb');
    expect(scrubText('')).toBe('');
  });
});

describe('memoryMiddleware — prompt shapes', () => {
  it('a user message that ends in a file gets the recall as a new text part; nothing else changes', async () => {
    const h = home();
    const { manager } = await openSession(h.path, { holographic: true });
    await manager.handleToolCall('fact_store', { action: 'add', content: 'The logo file is logo-v3.png.' });
    const model = new MockLanguageModelV3({ doGenerate: textAnswer('ok') });
    await generateText({
      model: wrapLanguageModel({ model, middleware: memoryMiddleware(manager, { systemPrompt: false }) }),
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Which logo file is this?' },
            { type: 'file', data: new Uint8Array([1, 2, 3]), mediaType: 'image/png' },
          ],
        },
      ],
    });
    const call: CallOptions = model.doGenerateCalls[0]!;
    expect(call.prompt).toHaveLength(1);
    const user = call.prompt[0]!;
    if (user.role !== 'user') throw new Error('expected a user message');
    expect(user.content.map((p) => p.type)).toEqual(['text', 'file', 'text']);
    const recall = user.content[2]!;
    expect(recall.type === 'text' && recall.text.startsWith('<memory-context>')).toBe(true);
    expect(recall.type === 'text' && recall.text).toContain('logo-v3.png');
  });
});
