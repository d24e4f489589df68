/**
 * Agent-to-agent turns (`a2aSessions`, spec §2.3 "Bot DMs"): a turn another bot wrote goes to a
 * Honcho session of its own with the sender as its user peer, never into the human's session;
 * during such a turn conclusions, card edits and the USER.md mirror write nothing.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { a2aSessionKey, botPeerId } from '../src/identity/a2a';
import { type Rig, startRig, WORKSPACE } from './harness';

let rig: Rig;
afterEach(async () => rig?.close());

const BOT = { id: 'bot:coder', name: 'coder', isBot: true };
const HUMAN = { id: '111222', name: 'Alice', isBot: false };
const sessionsOf = () => Object.keys(rig.fake.state.workspaces[WORKSPACE]!.sessions).sort();
const messagesIn = (session: string) =>
  rig.fake.messages(WORKSPACE, session).map((m) => [m.peer_id, m.content]);

describe('honcho a2a sessions', () => {
  it('§2.3 a bot-authored turn lands in <session>:a2a:<aiPeer>:<sender>-<digest8> with the bot as user peer, never in the human session', async () => {
    rig = await startRig();
    const provider = rig.provider({ writeFrequency: 'turn' });
    await rig.init(provider);
    await provider.idle();
    await provider.syncTurn('Message from coder: hi', 'hello coder', { turnAuthor: BOT });
    const digest = createHash('sha256').update('bot:coder').digest('hex').slice(0, 8);
    const a2a = `demo-a2a-hermes-bot-coder-${digest}`;
    expect(a2aSessionKey('demo', 'hermes', 'bot:coder')).toBe(a2a);
    expect(messagesIn(a2a)).toEqual([
      ['coder', 'Message from coder: hi'],
      ['hermes', 'hello coder'],
    ]);
    expect(messagesIn('demo')).toEqual([]);
    expect(Object.keys(rig.fake.state.workspaces[WORKSPACE]!.sessions[a2a]!.peers).sort()).toEqual([
      'coder',
      'hermes',
    ]);

    // A second bot gets a second session; a human turn still goes to the human's session.
    await provider.syncTurn('From writer', 'hi writer', {
      turnAuthor: { id: 'bot:writer', name: 'writer', isBot: true },
    });
    await provider.syncTurn('I am Alice', 'Hi Alice', { turnAuthor: HUMAN });
    expect(sessionsOf().filter((s) => s.includes('-a2a-'))).toHaveLength(2);
    expect(messagesIn('demo')).toEqual([
      ['alice', 'I am Alice'],
      ['hermes', 'Hi Alice'],
    ]);
  });

  it('the author named at turn start routes syncTurn when syncTurn names none; senders on two connections get two sessions', async () => {
    rig = await startRig();
    const provider = rig.provider({ writeFrequency: 'turn' });
    await rig.init(provider);
    await provider.idle();
    provider.onTurnStart(1, 'hi', { author: { id: 'bot:east/coder', isBot: true } });
    await provider.syncTurn('east says hi', 'hello east');
    provider.onTurnStart(2, 'hi', { author: { id: 'bot:west/coder', isBot: true } });
    await provider.syncTurn('west says hi', 'hello west');
    expect(botPeerId('bot:east/coder')).toBe('east-coder');
    const a2a = sessionsOf().filter((s) => s.startsWith('demo-a2a-hermes-bot-'));
    expect(a2a).toHaveLength(2);
    expect(a2a.map((s) => messagesIn(s)[0]![0]).sort()).toEqual(['east-coder', 'west-coder']);
    expect(messagesIn('demo')).toEqual([]);
  });

  it('with a2aSessions off, or a sender whose peer is this agent, the bot turn is skipped', async () => {
    rig = await startRig();
    const off = rig.provider({ writeFrequency: 'turn', a2aSessions: false });
    await rig.init(off);
    await off.idle();
    await off.syncTurn('Message from coder', 'ok', { turnAuthor: BOT });
    await off.syncTurn('Message from me', 'ok', { turnAuthor: { id: 'bot:hermes', isBot: true } });
    const on = rig.provider({ writeFrequency: 'turn' });
    await rig.init(on, 'session-2');
    await on.idle();
    await on.syncTurn('Message from me', 'ok', { turnAuthor: { id: 'bot:hermes', isBot: true } });
    await on.syncTurn('no id', 'ok', { turnAuthor: { isBot: true } });
    expect(rig.fake.state.workspaces[WORKSPACE]!.messages).toEqual([]);
    expect(sessionsOf()).toEqual(['demo']);
  });

  it('during a bot-authored turn conclusions, deletes, card edits and the USER.md mirror are refused; reads still work', async () => {
    rig = await startRig();
    const provider = rig.provider();
    await rig.init(provider);
    await provider.idle();
    const saved = JSON.parse(
      await provider.handleToolCall('honcho_conclude', { conclusion: 'Alice likes tea.' }),
    );
    provider.onTurnStart(2, 'relay', { author: BOT });
    const refusal =
      'Honcho memory writes are off during a bot-to-bot turn. Conclusions and profile edits describe the human.';
    const call = async (name: string, args: unknown) => JSON.parse(await provider.handleToolCall(name, args));
    expect(await call('honcho_conclude', { conclusion: 'Alice hates tea.' })).toEqual({ error: refusal });
    expect(await call('honcho_conclude', { delete_id: saved.id })).toEqual({ error: refusal });
    expect(await call('honcho_profile', { card: ['Alice hates tea.'] })).toEqual({ error: refusal });
    provider.onMemoryWrite('add', 'user', 'Alice hates tea.');
    await provider.idle();
    expect((await call('honcho_conclude', { list: true })).conclusions).toEqual([
      { id: saved.id, content: 'Alice likes tea.' },
    ]);
    expect((await call('honcho_profile', {})).result).toBe('No profile facts available yet.');

    // The next human turn writes again.
    provider.onTurnStart(3, 'hi', { author: HUMAN });
    expect((await call('honcho_conclude', { conclusion: 'Alice drinks coffee.' })).result).toMatch(/saved/);
  });
});
