import { describe, expect, it } from 'vitest';
import { currentTurn, messageText } from '../src';

describe('script helpers', () => {
  it('messageText flattens string and text-part content', () => {
    expect(messageText('plain')).toBe('plain');
    expect(
      messageText([
        { type: 'text', text: 'a' },
        { type: 'image_url', image_url: { url: 'x' } },
        { type: 'text', text: 'b' },
      ]),
    ).toBe('ab');
    expect(messageText(null)).toBe('');
  });

  it('currentTurn is the last user message and the tool results after it', () => {
    const turn = currentTurn([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'reply' },
      { role: 'user', content: 'second' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'memory', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: '{"success":true}' },
    ]);
    expect(turn.user).toBe('second');
    expect(turn.tools.map((m) => m.content)).toEqual(['{"success":true}']);
    expect(currentTurn([{ role: 'system', content: 'only' }])).toEqual({ user: '', tools: [] });
  });
});
