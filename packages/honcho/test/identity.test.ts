import { describe, expect, it } from 'vitest';
import { resolveHonchoConfig, resolveSessionName, resolveUserPeer, sessionIdOf } from '../src/index';

const config = (raw: Record<string, unknown> = {}) => resolveHonchoConfig({ raw, host: 'hermes', env: {} });

describe('honcho identity', () => {
  it('§2.7.6 gateway key "agent:main:telegram:dm:42" gives "agent-main-telegram-dm-42" and beats per-session', () => {
    const c = config({ sessionStrategy: 'per-session' });
    expect(
      resolveSessionName(c, {
        gatewaySessionKey: 'agent:main:telegram:dm:42',
        sessionId: 'sess-1',
        cwd: '/x/proj',
      }),
    ).toBe('agent-main-telegram-dm-42');
  });

  it('§2.7.7 per-session uses the id over title and manual map; otherwise title beats the directory; global returns the workspace', () => {
    const sessions = { '/x/proj': 'manual-name' };
    const perSession = config({ sessionStrategy: 'per-session', sessions });
    expect(
      resolveSessionName(perSession, { sessionId: 'sess-1', sessionTitle: 'My Title', cwd: '/x/proj' }),
    ).toBe('sess-1');
    const perDir = config({ sessionStrategy: 'per-directory' });
    expect(resolveSessionName(perDir, { sessionTitle: 'Bug hunt #3', cwd: '/x/proj' })).toBe('Bug-hunt-3');
    expect(resolveSessionName(perDir, { cwd: '/x/proj' })).toBe('proj');
    // The manual map beats the title outside per-session.
    expect(resolveSessionName(config({ sessions }), { sessionTitle: 'T', cwd: '/x/proj' })).toBe(
      'manual-name',
    );
    expect(
      resolveSessionName(config({ sessionStrategy: 'global', workspace: 'team-ws' }), { cwd: '/x/proj' }),
    ).toBe('team-ws');
    expect(
      resolveSessionName(config({ sessionStrategy: 'per-repo' }), {
        cwd: '/x/proj/sub',
        gitRepoName: 'proj',
      }),
    ).toBe('proj');
  });

  it('§2.7.8 a session id over 100 characters is cut to 100 with a "-<8hex>" suffix', () => {
    const long = `chat:${'x'.repeat(150)}`;
    const id = sessionIdOf(long);
    expect(id).toHaveLength(100);
    expect(id).toMatch(/^chat-x+-[0-9a-f]{8}$/);
    // Two long keys with the same prefix stay apart.
    expect(sessionIdOf(`${long}a`)).not.toBe(sessionIdOf(`${long}b`));
    expect(sessionIdOf('short:key')).toBe('short-key');
  });

  it('§2.7.9 user-peer ladder: pin, alias, alt alias, prefix with hash escalation, raw, peerName', () => {
    const base = { peerName: 'alice', pinUserPeer: false, userPeerAliases: {}, runtimePeerPrefix: '' };
    expect(resolveUserPeer({ ...base, pinUserPeer: true }, { userId: '42' }, 'k').id).toBe('alice');
    expect(resolveUserPeer({ ...base, userPeerAliases: { '42': 'bob' } }, { userId: '42' }, 'k')).toEqual({
      id: 'bob',
      source: 'alias',
    });
    expect(
      resolveUserPeer({ ...base, userPeerAliases: { alt: 'carol' } }, { userId: '42', userIdAlt: 'alt' }, 'k')
        .id,
    ).toBe('carol');
    expect(resolveUserPeer({ ...base, runtimePeerPrefix: 'tg-' }, { userId: '42' }, 'k').id).toBe('tg-42');
    // Sanitising changed it: a digest suffix keeps it unique.
    expect(resolveUserPeer({ ...base, runtimePeerPrefix: 'tg:' }, { userId: '42' }, 'k').id).toMatch(
      /^tg-42-[0-9a-f]{8}$/,
    );
    // Colliding with a configured peer escalates the digest length until unique.
    const collide = resolveUserPeer(
      { ...base, peerName: 'tg-42', runtimePeerPrefix: 'tg-' },
      { userId: '42' },
      'k',
    );
    expect(collide.id).toMatch(/^tg-42-[0-9a-f]{8}$/);
    expect(resolveUserPeer(base, { userId: 'u 1' }, 'k')).toEqual({ id: 'u-1', source: 'runtime' });
    expect(resolveUserPeer(base, {}, 'k')).toEqual({ id: 'alice', source: 'peerName' });
    expect(resolveUserPeer({ ...base, peerName: undefined }, {}, 'telegram:99').id).toBe('user-telegram-99');
  });
});
