import { afterEach, describe, expect, it } from 'vitest';
import { formatBaseContext } from '../src/recall/base-context';
import { truncateToChars } from '../src/recall/text';
import { type Rig, startRig, WORKSPACE } from './harness';

let rig: Rig;
afterEach(async () => rig?.close());

const chats = () => rig.fake.requestsTo('POST /v3/workspaces/:workspace/peers/:peer/chat').length;
const contexts = () => rig.fake.requests.filter((r) => r.path.endsWith('/context')).length;

describe('honcho hooks', () => {
  it('§2.7.10 agent_context cron or flush: prefetch, sync_turn and tools are no-ops and tools return the cron error', async () => {
    rig = await startRig();
    for (const agentContext of ['cron', 'flush'] as const) {
      const provider = rig.provider();
      await rig.init(provider, 's', { agentContext });
      expect(provider.getToolSchemas()).toEqual([]);
      expect(await provider.prefetch('what do I like?')).toBe('');
      await provider.syncTurn('remember this', 'ok');
      expect(JSON.parse(await provider.handleToolCall('honcho_search', { query: 'x' }))).toEqual({
        error: 'Honcho is not active (cron context).',
      });
    }
    const cronPlatform = rig.provider();
    await rig.init(cronPlatform, 's', { platform: 'cron' });
    expect(cronPlatform.getToolSchemas()).toEqual([]);
    expect(rig.fake.requests).toHaveLength(0);
  });

  it('§2.7.11 tools mode: no prefetch or queue_prefetch; session init waits for the first tool call unless initOnSessionStart', async () => {
    rig = await startRig();
    const lazy = rig.provider({ recallMode: 'tools' });
    await rig.init(lazy);
    lazy.onTurnStart(1, 'hello there');
    expect(await lazy.prefetch('what is my favourite language?')).toBe('');
    lazy.queuePrefetch('what is my favourite language?');
    await lazy.idle();
    expect(rig.fake.requests).toHaveLength(0);
    expect(lazy.getToolSchemas().map((t) => t.name)).toContain('honcho_profile');
    const answer = JSON.parse(await lazy.handleToolCall('honcho_profile', {}));
    expect(answer.result).toBe('No profile facts available yet.');
    expect(rig.fake.requestsTo('POST /v3/workspaces/:workspace/sessions').length).toBeGreaterThan(0);

    rig.fake.reset();
    const eager = rig.provider({ recallMode: 'tools', initOnSessionStart: true });
    await rig.init(eager);
    await eager.idle();
    await vitestUntil(() => rig.fake.requestsTo('POST /v3/workspaces/:workspace/sessions').length > 0);
    expect(chats()).toBe(0); // no prewarm in tools mode
  });

  it('§2.7.12 context mode: get_tool_schemas() returns []', async () => {
    rig = await startRig();
    const provider = rig.provider({ recallMode: 'context' });
    expect(provider.getToolSchemas()).toEqual([]);
    await rig.init(provider);
    expect(provider.getToolSchemas()).toEqual([]);
    expect(rig.provider({ recallMode: 'hybrid' }).getToolSchemas()).toHaveLength(5);
  });

  it('§2.7.13 initialize returns within about 0.1 s even when Honcho hangs', async () => {
    rig = await startRig();
    rig.fake.fail({ type: 'timeout', count: 50 });
    const provider = rig.provider();
    const started = performance.now();
    await rig.init(provider);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeLessThan(600); // budget 100 ms plus a loaded machine's slack
    expect(rig.fake.hanging).toBeGreaterThan(0);
    expect(provider.health()?.status).not.toBe('ok');
  });

  it('§2.7.14 turn-1 prefetch waits at most firstTurnBaseWait for base context and firstTurnDialecticWait for dialectic', async () => {
    rig = await startRig();
    const provider = rig.provider({ firstTurnBaseWait: 0.3, firstTurnDialecticWait: 0.2 });
    await rig.init(provider);
    await provider.idle();
    rig.fake.fail({ type: 'timeout', count: 50 });
    const fresh = rig.provider({ firstTurnBaseWait: 0.3, firstTurnDialecticWait: 0.2 });
    await rig.init(fresh, 'other');
    fresh.onTurnStart(1, 'Tell me about my projects');
    const started = performance.now();
    const text = await fresh.prefetch('Tell me about my projects');
    const elapsed = performance.now() - started;
    expect(text).toBe('');
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(300 + 400); // the longer of the two waits (they run side by side) plus slack
    // Turn 2 serves what is ready and never waits.
    fresh.onTurnStart(2, 'next');
    const t2 = performance.now();
    await fresh.prefetch('and my hobbies?');
    expect(performance.now() - t2).toBeLessThan(50);
    // A host that never calls onTurnStart waits once, not on every turn.
    const noTurns = rig.provider({ firstTurnBaseWait: 0.3, firstTurnDialecticWait: 0.2 });
    await rig.init(noTurns, 'third');
    await noTurns.prefetch('Tell me about my projects');
    const t3 = performance.now();
    await noTurns.prefetch('and my hobbies?');
    expect(performance.now() - t3).toBeLessThan(50);
  });

  it('§2.7.15 trivial prompts ("ok", "/help", "") fire no new context or dialectic calls', async () => {
    rig = await startRig();
    const provider = rig.provider();
    await rig.init(provider);
    await provider.idle();
    provider.onTurnStart(1, 'I like Rust');
    await provider.prefetch('I like Rust and compilers');
    await provider.idle();
    const before = { chat: chats(), context: contexts() };
    for (const [turn, text] of [
      [2, 'ok'],
      [3, '/help'],
      [4, ''],
    ] as const) {
      provider.onTurnStart(turn, text);
      await provider.prefetch(text);
      provider.queuePrefetch(text);
      await provider.idle();
    }
    expect({ chat: chats(), context: contexts() }).toEqual(before);
  });

  it('§2.7.16 base context is Summary, User Representation, User Peer Card, AI Self-Representation, AI Identity Card; empty sections omitted', async () => {
    const all = ['summary', 'peerRepresentation', 'peerCard', 'aiRepresentation', 'aiCard'] as const;
    const text = formatBaseContext(
      {
        summary: 'S',
        userRepresentation: 'U',
        userCard: ['likes tea'],
        aiRepresentation: '',
        aiCard: ['is Hermes'],
      },
      all,
    );
    expect(text).toBe(
      '## Session Summary\nS\n\n## User Representation\nU\n\n## User Peer Card\n- likes tea\n\n## AI Identity Card\n- is Hermes',
    );
    expect(formatBaseContext({ summary: '<think>plan</think>Real summary' }, all)).toBe(
      '## Session Summary\nReal summary',
    );

    // Through the provider and the SDK: what Honcho holds lands in those sections.
    rig = await startRig();
    const provider = rig.provider({ writeFrequency: 'turn' });
    await rig.init(provider);
    await provider.idle();
    provider.onTurnStart(1, 'x');
    await provider.syncTurn('I prefer tea over coffee.', 'Tea it is.');
    rig.fake.setSummary(WORKSPACE, 'demo', 'Alice talked about drinks.');
    await provider.handleToolCall('honcho_profile', { card: ['Prefers tea'] });
    const next = rig.provider();
    await rig.init(next, 's2');
    next.onTurnStart(1, 'What do I drink?');
    const injected = await next.prefetch('What do I drink, tea or coffee?');
    const order = ['## Session Summary', '## User Representation', '## User Peer Card'].map((h) =>
      injected.indexOf(h),
    );
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(injected).toContain('Prefers tea');
    expect(injected).not.toContain('## AI Identity Card');
  });

  it('§2.7.22 contextTokens 10 cuts the result to about 40 characters at a word boundary and appends " …"', async () => {
    const long = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu';
    const cut = truncateToChars(long, 40);
    expect(cut.endsWith(' …')).toBe(true);
    expect(cut.length).toBeLessThanOrEqual(42);
    expect(cut.length).toBeGreaterThan(32);
    expect(long.startsWith(cut.slice(0, -2))).toBe(true);
    expect(long[cut.length - 2]).toBe(' ');

    rig = await startRig();
    const writer = rig.provider({ writeFrequency: 'turn' });
    await rig.init(writer);
    await writer.syncTurn(`${long} ${long} about coffee`, 'ok');
    const provider = rig.provider({ contextTokens: 10 });
    await rig.init(provider, 's2');
    provider.onTurnStart(1, 'coffee?');
    const text = await provider.prefetch('Tell me about alpha beta coffee');
    expect(text.length).toBeLessThanOrEqual(42);
    expect(text.endsWith(' …')).toBe(true);
  });
});

/** Poll a condition on the event loop (no timers): the fake answers over real sockets. */
async function vitestUntil(condition: () => boolean, rounds = 5000): Promise<void> {
  for (let i = 0; i < rounds && !condition(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(condition()).toBe(true);
}

describe('honcho injection log', () => {
  it('logging: true writes one owner-only JSON line per prefetch to ~/.honcho/injection.log', async () => {
    rig = await startRig();
    const { default: fs } = await import('node:fs');
    const { default: path } = await import('node:path');
    const provider = rig.provider({ logging: true, writeFrequency: 'turn' });
    await rig.init(provider);
    await provider.syncTurn('I collect vintage synthesizers.', 'Nice.');
    provider.onTurnStart(1, 'synths?');
    const text = await provider.prefetch('Which synthesizers do I collect?');
    const file = path.join(rig.home.path, '.honcho', 'injection.log');
    await vitestUntil(() => fs.existsSync(file) && fs.readFileSync(file, 'utf8').endsWith('\n'));
    const lines = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1);
    expect(lines[0].injected).toBe(text);
    expect(lines[0].session).toBe('demo');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });
});

describe('honcho recallSync', () => {
  it('recallSync answers the current query within the timeout, every pass prompt starting with it; a hang gives "" in budget', async () => {
    rig = await startRig();
    const writer = rig.provider({ writeFrequency: 'turn' });
    await rig.init(writer);
    await writer.syncTurn('My favourite editor is Helix.', 'Noted.');
    await writer.idle();
    const before = rig.fake.requestsTo('POST /v3/workspaces/:workspace/peers/:peer/chat').length;
    const provider = rig.provider({ recallSync: true, timeout: 0.4 });
    await rig.init(provider, 's2');
    await provider.idle();
    const chats = () => rig.fake.requestsTo('POST /v3/workspaces/:workspace/peers/:peer/chat').slice(before);
    expect(chats().map((r) => (r.body as { query: string }).query)).toEqual([]); // no prewarm
    provider.onTurnStart(3, 'editor?');
    const text = await provider.prefetch('Which editor do I use?');
    expect(text).toContain('Helix');
    expect((chats().at(-1)!.body as { query: string }).query.startsWith('Which editor do I use?')).toBe(true);
    provider.queuePrefetch('Which editor do I use?');
    await provider.idle();
    expect(chats()).toHaveLength(1); // queuePrefetch does nothing under recallSync
    rig.fake.fail({ type: 'timeout', count: 20 });
    provider.onTurnStart(4, 'again');
    const started = performance.now();
    expect(await provider.prefetch('Which editor do I use now?')).toBe('');
    expect(performance.now() - started).toBeLessThan(400 + 400);
  });
});

describe('honcho inspection', () => {
  it('initializeForInspection starts nothing and writes nothing', async () => {
    rig = await startRig();
    const provider = rig.provider();
    await provider.initializeForInspection('s', {
      hermesHome: rig.home.path,
      platform: 'cli',
      agentContext: 'primary',
      logger: (await import('@hermes-memory/core')).silentLogger,
      env: {},
      inspectionOnly: true,
    });
    await provider.syncTurn('should not be stored', 'no');
    await provider.idle();
    expect(rig.fake.requests).toHaveLength(0);
  });
});
