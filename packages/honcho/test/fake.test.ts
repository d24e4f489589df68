import { Honcho } from '@honcho-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeHoncho, startFakeHoncho } from '../src/testing/index';

let fake: FakeHoncho;
afterEach(async () => fake?.close());

const KEY = 'fake-test-key-42';
const client = (apiKey = KEY) => new Honcho({ baseURL: fake.url, apiKey, workspaceId: 'ws', maxRetries: 0 });

describe('fake Honcho speaks the v3 protocol the official SDK expects', () => {
  it('Bearer auth: a wrong key is a 401 the SDK reports; the key is redacted in recordings', async () => {
    fake = await startFakeHoncho({ apiKey: KEY });
    await expect(client('wrong').peer('alice')).rejects.toMatchObject({ status: 401 });
    await client().peer('alice');
    expect(fake.requests.every((r) => !JSON.stringify(r).includes(KEY))).toBe(true);
    expect(fake.requests.at(-1)!.headers.authorization).toBe('Bearer [redacted]');
  });

  it('messages: pages the SDK iterates, 422 for a message over 25 000 characters (nothing stored), 404 with detail', async () => {
    fake = await startFakeHoncho({ apiKey: KEY });
    const honcho = client();
    const alice = await honcho.peer('alice');
    const session = await honcho.session('s1');
    await session.addPeers([alice]);
    await session.addMessages(Array.from({ length: 60 }, (_, i) => alice.message(`message ${i}`)));
    const seen: string[] = [];
    for await (const message of await session.messages()) seen.push(message.content);
    expect(seen).toHaveLength(60);
    expect(seen[59]).toBe('message 59');
    await expect(
      session.addMessages([alice.message('ok'), alice.message('x'.repeat(25_001))]),
    ).rejects.toMatchObject({
      status: 422,
    });
    expect(fake.messages('ws', 's1')).toHaveLength(60);
    await expect((await honcho.peer('bob')).getCard('nobody')).resolves.toBeNull();
    const missing = honcho.session('s1').then((s) => s.getMessage('msg_nope'));
    await expect(missing).rejects.toMatchObject({ status: 404 });
  });

  it('dialectic: chat answers only from what was stored, as JSON and as an SSE stream', async () => {
    fake = await startFakeHoncho({ apiKey: KEY });
    const honcho = client();
    const alice = await honcho.peer('alice');
    const bot = await honcho.peer('bot');
    expect(await bot.chat('what does alice like?', { target: alice })).toBeNull();
    const session = await honcho.session('s1');
    await session.addPeers([alice, bot]);
    await session.addMessages([alice.message('I like hiking in the Alps.'), bot.message('Sounds great.')]);
    const answer = await bot.chat('what does alice like for hiking?', { target: alice });
    expect(answer).toContain('I like hiking in the Alps.');
    const stream = await bot.chatStream('hiking?', { target: alice });
    let streamed = '';
    for await (const chunk of stream) streamed += chunk;
    expect(streamed).toBe(answer);
    const context = await session.context({ summary: true, peerTarget: alice, peerPerspective: bot });
    expect(context.peerRepresentation).toContain('hiking');
    expect(context.messages).toHaveLength(2);
  });
});
