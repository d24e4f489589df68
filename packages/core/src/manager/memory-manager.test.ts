import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryError } from '../errors/memory-error';
import type { ChatMessage } from '../llm/types';
import { createRecordingLogger } from '../logging/logger';
import { MemoryProvider } from '../provider/memory-provider';
import type {
  InitContext,
  MemoryTarget,
  MemoryWriteAction,
  MemoryWriteMetadata,
  PreCompressOptions,
  PrefetchOptions,
  RecallStatus,
  SessionSwitchOptions,
  SyncTurnOptions,
  ToolSchema,
  TurnStartInfo,
} from '../provider/types';
import { MemoryManager } from './memory-manager';
import { buildSkillInvocationMessage } from './skill-scaffolding';

/**
 * Options objects without the manager's per-call `signal` (its presence is asserted on its own);
 * an options object that held only the signal reads as absent.
 */
function plain<T>(value: T): T | undefined {
  if (typeof value !== 'object' || value === null || !('signal' in value)) return value;
  const { signal: _signal, ...rest } = value as Record<string, unknown>;
  return Object.keys(rest).length === 0 ? undefined : (rest as T);
}

/** A test double of a provider: records every hook call; behaviour set per test. */
class FakeProvider extends MemoryProvider {
  readonly calls: Array<[string, ...unknown[]]> = [];
  tools: unknown[] = [];
  block = '';
  recall = '';
  prefetchImpl?: (q: string) => Promise<string> | string;
  syncImpl?: (u: string) => Promise<void> | void;
  failOn = new Set<string>();
  switchResult: boolean | undefined = undefined;
  status: RecallStatus | null = null;
  override preCompressCheckpointApiVersion: 1 | 2 = 1;
  compressText = '';
  initContext?: InitContext;

  constructor(readonly name: string) {
    super();
  }
  private maybeFail(hook: string): void {
    if (this.failOn.has(hook)) throw new Error(`${hook} exploded`);
  }
  isAvailable(): boolean {
    return true;
  }
  initialize(sessionId: string, context: InitContext): void {
    this.calls.push(['initialize', sessionId]);
    this.initContext = context;
    this.maybeFail('initialize');
  }
  getToolSchemas(): ToolSchema[] {
    this.maybeFail('getToolSchemas');
    return this.tools as ToolSchema[];
  }
  override systemPromptBlock(): string {
    this.maybeFail('systemPromptBlock');
    return this.block;
  }
  override async prefetch(query: string, options?: PrefetchOptions): Promise<string> {
    this.calls.push(['prefetch', query, plain(options)]);
    this.maybeFail('prefetch');
    return this.prefetchImpl ? this.prefetchImpl(query) : this.recall;
  }
  override queuePrefetch(query: string): void {
    this.calls.push(['queuePrefetch', query]);
  }
  override async syncTurn(user: string, assistant: string, options?: SyncTurnOptions): Promise<void> {
    this.maybeFail('syncTurn');
    if (this.syncImpl) await this.syncImpl(user);
    this.calls.push(['syncTurn', user, assistant, plain(options)]);
  }
  override handleToolCall(name: string, args: unknown): string {
    this.maybeFail('handleToolCall');
    return JSON.stringify({ success: true, provider: this.name, tool: name, args });
  }
  override shutdown(): void {
    this.calls.push(['shutdown']);
    order.push(this.name);
  }
  override onTurnStart(turn: number, message: string): void {
    this.calls.push(['onTurnStart', turn, message]);
    this.maybeFail('onTurnStart');
  }
  override onSessionEnd(messages: readonly ChatMessage[]): void {
    this.calls.push(['onSessionEnd', messages.length]);
    this.maybeFail('onSessionEnd');
  }
  override onSessionSwitch(id: string, options: SessionSwitchOptions): boolean | undefined {
    this.calls.push(['onSessionSwitch', id, plain(options)]);
    this.maybeFail('onSessionSwitch');
    return this.switchResult;
  }
  override onPreCompress(messages: readonly ChatMessage[], options?: PreCompressOptions): string {
    this.calls.push(['onPreCompress', messages, plain(options)]);
    this.maybeFail('onPreCompress');
    return this.compressText;
  }
  override onMemoryWrite(
    action: MemoryWriteAction,
    target: MemoryTarget,
    content: string,
    metadata?: MemoryWriteMetadata,
  ): void {
    this.calls.push(['onMemoryWrite', action, target, content, metadata]);
    this.maybeFail('onMemoryWrite');
  }
  override onDelegation(task: string, result: string): void {
    this.calls.push(['onDelegation', task, result]);
  }
  override recallStatus(): RecallStatus | null {
    return this.status;
  }
  hook(name: string) {
    return this.calls.filter((c) => c[0] === name);
  }
}

let order: string[] = [];
const tool = (name: string): ToolSchema => ({
  name,
  description: name,
  parameters: { type: 'object', properties: {} },
});
const deferred = <T>() => {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
};

let tmp: string | undefined;
afterEach(() => {
  order = [];
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  tmp = undefined;
});

describe('registration and routing (checklist 5–15)', () => {
  it('empty manager', async () => {
    const m = new MemoryManager();
    expect(m.providers).toEqual([]);
    expect(m.getAllToolSchemas()).toEqual([]);
    expect(m.buildSystemPrompt()).toBe('');
    expect(await m.prefetchAll('hello there')).toBe('');
  });

  it('orders builtin first and rejects a second external with a WARNING', () => {
    const logger = createRecordingLogger();
    const m = new MemoryManager({ logger });
    const ext = new FakeProvider('honcho');
    expect(m.addProvider(ext)).toBe(true);
    expect(m.addProvider(new FakeProvider('builtin'))).toBe(true);
    expect(m.providers.map((p) => p.name)).toEqual(['builtin', 'honcho']);
    expect(m.addProvider(new FakeProvider('mem0'))).toBe(false);
    expect(m.providers.map((p) => p.name)).toEqual(['builtin', 'honcho']);
    const warning = logger.records.find((r) => r.level === 'warn')!;
    expect(warning.message).toContain("'mem0'");
    expect(warning.message).toContain("'honcho'");
    expect(warning.message).toContain('memory.provider');
    expect(logger.records).toContainEqual({
      level: 'info',
      message: "Memory provider 'honcho' registered (0 tools)",
    });
  });

  it('a provider whose schemas throw is not registered and does not block a later one', () => {
    const m = new MemoryManager();
    const bad = new FakeProvider('bad');
    bad.failOn.add('getToolSchemas');
    expect(m.addProvider(bad)).toBe(false);
    expect(m.addProvider(new FakeProvider('good'))).toBe(true);
    expect(m.providers.map((p) => p.name)).toEqual(['good']);
  });

  it('first registrant wins a tool name conflict', async () => {
    const m = new MemoryManager();
    const builtin = new FakeProvider('builtin');
    builtin.tools = [tool('shared_tool')];
    const ext = new FakeProvider('ext');
    ext.tools = [tool('shared_tool'), tool('ext_tool')];
    m.addProvider(builtin);
    m.addProvider(ext);
    expect(JSON.parse(await m.handleToolCall('shared_tool', {})).provider).toBe('builtin');
    expect(JSON.parse(await m.handleToolCall('ext_tool', {})).provider).toBe('ext');
    expect(m.getAllToolNames().sort()).toEqual(['ext_tool', 'shared_tool']);
    expect(m.getAllToolSchemas().map((s) => s.name)).toEqual(['shared_tool', 'ext_tool']);
  });

  it('reserved core names are neither routed nor advertised; builtin may own memory/session_search', () => {
    const logger = createRecordingLogger();
    const m = new MemoryManager({ logger, reservedToolNames: ['my_core'] });
    const ext = new FakeProvider('ext');
    // Core tool names (the reference's `terminal`, `todo`, …), reserved prefixes and a host-reserved name.
    const reserved = [
      'terminal',
      'memory',
      'todo',
      'session_search',
      'browser_click',
      'ha_call_service',
      'my_core',
    ];
    ext.tools = [...reserved, 'ok_tool'].map(tool);
    m.addProvider(ext);
    for (const name of reserved) {
      expect(m.hasTool(name)).toBe(false);
    }
    expect(m.hasTool('ok_tool')).toBe(true);
    expect(m.getAllToolSchemas().map((s) => s.name)).toEqual(['ok_tool']);
    expect(logger.records.filter((r) => r.message.includes('reserved')).length).toBe(7);

    const m2 = new MemoryManager();
    const builtin = new FakeProvider('builtin');
    builtin.tools = [tool('memory'), tool('session_search'), tool('terminal')];
    m2.addProvider(builtin);
    expect(m2.getAllToolNames()).toEqual(['memory', 'session_search']);
  });

  it('unknown tools and throwing providers give JSON errors', async () => {
    const logger = createRecordingLogger();
    const m = new MemoryManager({ logger });
    const p = new FakeProvider('ext');
    p.tools = [tool('ext_tool')];
    p.failOn.add('handleToolCall');
    m.addProvider(p);
    expect(JSON.parse(await m.handleToolCall('nope', {})).error).toBe(
      "No memory provider handles tool 'nope'",
    );
    expect(JSON.parse(await m.handleToolCall('ext_tool', {})).error).toBe(
      "Memory tool 'ext_tool' failed: handleToolCall exploded",
    );
    expect(logger.records.some((r) => r.level === 'error')).toBe(true);
  });

  it('the default handleToolCall becomes a JSON error (checklist 3)', async () => {
    class Bare extends MemoryProvider {
      readonly name = 'bare';
      isAvailable() {
        return true;
      }
      initialize() {}
      getToolSchemas() {
        return [tool('bare_tool')];
      }
    }
    const m = new MemoryManager();
    m.addProvider(new Bare());
    expect(JSON.parse(await m.handleToolCall('bare_tool', {})).error).toMatch(/failed: .*not implemented/);
  });

  it('normalises wrapped schemas and drops nameless ones', () => {
    const logger = createRecordingLogger();
    const m = new MemoryManager({ logger });
    const p = new FakeProvider('ext');
    p.tools = [{ type: 'function', function: tool('wrapped') }, { description: 'no name' }, tool('bare')];
    m.addProvider(p);
    expect(m.getAllToolSchemas().map((s) => s.name)).toEqual(['wrapped', 'bare']);
    expect(logger.records.some((r) => r.message.includes('no resolvable name'))).toBe(true);
  });

  it('validates options', () => {
    expect(() => new MemoryManager({ externalPrefetchTimeoutMs: 0 })).toThrow(/positive/);
  });
});

describe('fan-out (checklist 16–24)', () => {
  it('system prompt joins non-empty blocks and survives a throwing provider', () => {
    const m = new MemoryManager();
    const a = new FakeProvider('builtin');
    a.block = 'A';
    const b = new FakeProvider('ext');
    b.block = '  ';
    m.addProvider(a);
    m.addProvider(b);
    expect(m.buildSystemPrompt()).toBe('A');
    b.block = 'B';
    expect(m.buildSystemPrompt()).toBe('A\n\nB');
    a.failOn.add('systemPromptBlock');
    expect(m.buildSystemPrompt()).toBe('B');
  });

  it('prefetchAll joins non-empty results, skips a throwing provider and returns the fenced block', async () => {
    const m = new MemoryManager();
    const a = new FakeProvider('builtin');
    a.recall = 'fact A';
    const b = new FakeProvider('ext');
    b.recall = 'fact B';
    m.addProvider(a);
    m.addProvider(b);
    const block = await m.prefetchAll('what do I like?');
    expect(block.startsWith('<memory-context>\n')).toBe(true);
    expect(block).toContain('\n\nfact A\n\nfact B\n</memory-context>');
    b.failOn.add('prefetch');
    expect(await m.prefetchAllRaw('again')).toBe('fact A');
    a.recall = '';
    b.failOn.clear();
    b.recall = '';
    expect(await m.prefetchAll('x')).toBe('');
  });

  it('strips skill scaffolding: bare invocation does nothing, instruction is forwarded alone', async () => {
    const m = new MemoryManager();
    const p = new FakeProvider('ext');
    p.recall = 'r';
    m.addProvider(p);
    const bare = buildSkillInvocationMessage('deploy', 'SKILL BODY');
    expect(await m.prefetchAll(bare)).toBe('');
    m.syncAll(bare, 'ok');
    m.queuePrefetchAll(bare);
    await m.flushPending();
    expect(p.calls).toEqual([]);
    const withInstruction = buildSkillInvocationMessage('deploy', 'SKILL BODY', 'ship the API');
    await m.prefetchAll(withInstruction);
    m.syncAll(withInstruction, 'done');
    m.queuePrefetchAll(withInstruction);
    await m.flushPending();
    expect(p.hook('prefetch')[0]![1]).toBe('ship the API');
    expect(p.hook('syncTurn')[0]![1]).toBe('ship the API');
    expect(p.hook('queuePrefetch')[0]![1]).toBe('ship the API');
  });

  it('syncAll and queuePrefetchAll return at once and land after flushPending, in turn order', async () => {
    const m = new MemoryManager();
    const p = new FakeProvider('ext');
    const gate = deferred<void>();
    p.syncImpl = (u) => (u === 'turn 1' ? gate.promise : undefined);
    m.addProvider(p);
    const messages: ChatMessage[] = [{ role: 'user', content: 'turn 1' }];
    m.syncAll('turn 1', 'a1', { messages, sessionId: 's1' });
    m.syncAll('turn 2', 'a2');
    m.queuePrefetchAll('next');
    expect(p.hook('syncTurn')).toEqual([]);
    expect(await m.flushPending(1)).toBe(false);
    gate.resolve();
    expect(await m.flushPending()).toBe(true);
    expect(p.hook('syncTurn').map((c) => c[1])).toEqual(['turn 1', 'turn 2']);
    expect(p.hook('syncTurn')[0]![3]).toEqual({ sessionId: 's1', messages });
    expect(p.hook('queuePrefetch')).toHaveLength(1);
  });

  it('a turn author reaches syncTurn and onTurnStart as given (a bot author keeps isBot)', async () => {
    const m = new MemoryManager();
    const seen: unknown[] = [];
    class AuthorAware extends FakeProvider {
      override onTurnStart(turn: number, message: string, info?: TurnStartInfo): void {
        seen.push(info?.author);
        super.onTurnStart(turn, message);
      }
    }
    const p = new AuthorAware('ext');
    m.addProvider(p);
    const author = { id: 'bot:coder', name: 'coder', isBot: true };
    await m.onTurnStart(1, 'hello', { author });
    m.syncAll('hello', 'hi', { turnAuthor: author });
    m.syncAll('again', 'ok', { turnAuthor: '111222' });
    expect(await m.flushPending()).toBe(true);
    expect(seen).toEqual([author]);
    expect(p.hook('syncTurn').map((c) => (c[3] as SyncTurnOptions).turnAuthor)).toEqual([author, '111222']);
  });

  it('flushPending also waits for work a provider queued internally, within the deadline', async () => {
    class Buffered extends FakeProvider {
      readonly gate = deferred<void>();
      landed = false;
      override async flush(timeoutMs?: number): Promise<boolean> {
        const done = this.gate.promise.then(() => {
          this.landed = true;
          return true;
        });
        if (timeoutMs === undefined) return done;
        return Promise.race([done, new Promise<boolean>((r) => setTimeout(() => r(false), timeoutMs))]);
      }
    }
    const m = new MemoryManager();
    const p = new Buffered('ext');
    m.addProvider(p);
    m.syncAll('turn 1', 'a1');
    expect(await m.flushPending(5)).toBe(false);
    p.gate.resolve();
    expect(await m.flushPending()).toBe(true);
    expect(p.landed).toBe(true);
  });

  it('a failing sync does not stop other providers', async () => {
    const logger = createRecordingLogger();
    const m = new MemoryManager({ logger });
    const a = new FakeProvider('builtin');
    a.failOn.add('syncTurn');
    const b = new FakeProvider('ext');
    m.addProvider(a);
    m.addProvider(b);
    m.syncAll('u', 'a');
    await m.flushPending();
    expect(b.hook('syncTurn')).toHaveLength(1);
    expect(logger.records.some((r) => r.level === 'warn' && r.message.includes('syncTurn exploded'))).toBe(
      true,
    );
  });

  it('flushPending is true with no queued work', async () => {
    expect(await new MemoryManager().flushPending(0)).toBe(true);
  });

  it('a timed-out external prefetch is skipped while stuck, then used again (checklist 24)', async () => {
    const logger = createRecordingLogger();
    const m = new MemoryManager({ logger, externalPrefetchTimeoutMs: 5 });
    const builtin = new FakeProvider('builtin');
    builtin.recall = 'local';
    const ext = new FakeProvider('ext');
    const slow = deferred<string>();
    ext.prefetchImpl = () => slow.promise;
    m.addProvider(builtin);
    m.addProvider(ext);
    expect(await m.prefetchAllRaw('q1')).toBe('local');
    expect(logger.records.some((r) => r.level === 'warn' && r.message.includes('exceeded 5 ms'))).toBe(true);
    expect(await m.prefetchAllRaw('q2')).toBe('local');
    expect(ext.hook('prefetch')).toHaveLength(1);
    slow.resolve('late');
    // Let the settled call's bookkeeping run (a macrotask turn, not a timed sleep).
    await new Promise((r) => setImmediate(r));
    ext.prefetchImpl = () => 'remote';
    expect(await m.prefetchAllRaw('q3')).toBe('local\n\nremote');
    expect(ext.hook('prefetch')).toHaveLength(2);
  });
});

describe('lifecycle hooks (checklist 25–37)', () => {
  it('initializeAll fills defaults, forwards context verbatim and injects onMemoryWrite', async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-mgr-'));
    fs.writeFileSync(path.join(tmp, '.env'), 'FROM_FILE=1\n');
    const m = new MemoryManager();
    const a = new FakeProvider('builtin');
    const b = new FakeProvider('ext');
    m.addProvider(a);
    m.addProvider(b);
    await m.initializeAll('s1', { hermesHome: tmp, userId: 'u1', chatId: 'c1', platform: 'telegram' });
    expect(b.initContext).toMatchObject({
      hermesHome: tmp,
      platform: 'telegram',
      agentContext: 'primary',
      userId: 'u1',
      chatId: 'c1',
    });
    expect(b.initContext?.env?.FROM_FILE).toBe('1');
    await m.initializeAll('s2', { hermesHome: tmp });
    expect(b.initContext?.platform).toBe('cli');
    expect('userId' in (b.initContext ?? {})).toBe(false);
    expect(b.initContext?.providerConfig).toEqual({});
    // The injected callback mirrors builtin writes to the external provider only.
    a.initContext!.onMemoryWrite!('remove', 'user', 'old fact', { oldText: 'old' });
    await m.flushPending();
    expect(b.hook('onMemoryWrite')).toEqual([
      ['onMemoryWrite', 'remove', 'user', 'old fact', { oldText: 'old' }],
    ]);
    expect(a.hook('onMemoryWrite')).toEqual([]);
  });

  it('initializeAll injects hermesHome from HERMES_HOME and isolates failures', async () => {
    const logger = createRecordingLogger();
    const m = new MemoryManager({ logger });
    const a = new FakeProvider('builtin');
    a.failOn.add('initialize');
    const b = new FakeProvider('ext');
    m.addProvider(a);
    m.addProvider(b);
    await m.initializeAll('s', { env: { HERMES_HOME: '/tmp/hm-home-x' } });
    expect(b.initContext?.hermesHome).toBe('/tmp/hm-home-x');
    expect(logger.records.some((r) => r.level === 'warn' && r.message.includes('initialize'))).toBe(true);
  });

  it('onTurnStart, onSessionEnd and onDelegation fan out with isolation', async () => {
    const m = new MemoryManager();
    const a = new FakeProvider('builtin');
    a.failOn.add('onTurnStart');
    a.failOn.add('onSessionEnd');
    const b = new FakeProvider('ext');
    m.addProvider(a);
    m.addProvider(b);
    await m.onTurnStart(1, 'hi');
    await m.onSessionEnd([{ role: 'user', content: 'x' }]);
    await m.onDelegation('task', 'result');
    expect(b.hook('onTurnStart')).toEqual([['onTurnStart', 1, 'hi']]);
    expect(b.hook('onSessionEnd')).toEqual([['onSessionEnd', 1]]);
    expect(b.hook('onDelegation')).toEqual([['onDelegation', 'task', 'result']]);
  });

  it('onSessionSwitch forwards options, rewound only when true, empty id is a no-op', async () => {
    const m = new MemoryManager();
    const a = new FakeProvider('builtin');
    const b = new FakeProvider('ext');
    m.addProvider(a);
    m.addProvider(b);
    expect(await m.onSessionSwitch('', { reset: true })).toBe(true);
    expect(b.hook('onSessionSwitch')).toEqual([]);
    expect(
      await m.onSessionSwitch('s2', { parentSessionId: 's1', reset: true, rewound: false, reason: 'new' }),
    ).toBe(true);
    expect(b.hook('onSessionSwitch')[0]).toEqual([
      'onSessionSwitch',
      's2',
      { parentSessionId: 's1', reset: true, reason: 'new' },
    ]);
    await m.onSessionSwitch('s2', { rewound: true });
    expect(b.hook('onSessionSwitch')[1]![2]).toEqual({ parentSessionId: '', reset: false, rewound: true });
    expect(m.sessionId).toBe('s2');
  });

  it('onSessionSwitch isolates failures, returns false and retries only failed providers', async () => {
    const m = new MemoryManager();
    const a = new FakeProvider('builtin');
    a.failOn.add('onSessionSwitch');
    const b = new FakeProvider('ext');
    m.addProvider(a);
    m.addProvider(b);
    expect(await m.onSessionSwitch('s3')).toBe(false);
    expect(b.hook('onSessionSwitch')).toHaveLength(1);
    expect(m.hasPendingSessionSwitch).toBe(true);
    a.failOn.clear();
    expect(await m.retryPendingSessionSwitch()).toBe(true);
    expect(a.hook('onSessionSwitch')).toHaveLength(2);
    expect(b.hook('onSessionSwitch')).toHaveLength(1);
    b.switchResult = false;
    expect(await m.onSessionSwitch('s4')).toBe(false);
  });

  it('commitSessionBoundary runs onSessionEnd then onSessionSwitch(reset) after queued syncs', async () => {
    const m = new MemoryManager();
    const p = new FakeProvider('ext');
    m.addProvider(p);
    m.syncAll('last turn', 'reply', { sessionId: 'old' });
    const done = m.commitSessionBoundary([{ role: 'user', content: 'last turn' }], {
      newSessionId: 'new',
      parentSessionId: 'old',
      reason: 'reset',
    });
    expect(await done).toBe(true);
    expect(p.calls.map((c) => c[0])).toEqual(['syncTurn', 'onSessionEnd', 'onSessionSwitch']);
    expect(p.hook('onSessionSwitch')[0]![2]).toEqual({
      parentSessionId: 'old',
      reset: true,
      reason: 'reset',
    });
    expect(m.sessionId).toBe('new');
  });

  it('onMemoryWrite skips builtin, isolates failures and gives each provider a fresh metadata copy', async () => {
    const m = new MemoryManager();
    const a = new FakeProvider('builtin');
    const b = new FakeProvider('ext');
    b.failOn.add('onMemoryWrite');
    m.addProvider(a);
    m.addProvider(b);
    const meta: MemoryWriteMetadata = { writeOrigin: 'tool' };
    m.onMemoryWrite('add', 'memory', 'x', meta);
    m.onMemoryWrite('replace', 'memory', 'y', meta);
    await m.flushPending();
    expect(a.hook('onMemoryWrite')).toEqual([]);
    expect(b.hook('onMemoryWrite')).toHaveLength(2);
    const passed = b.hook('onMemoryWrite')[0]![4];
    expect(passed).toEqual(meta);
    expect(passed).not.toBe(meta);
  });

  it('onPreCompress joins texts; v2 gets evidence and requireCheckpoint, v1 never does', async () => {
    const m = new MemoryManager();
    const v1 = new FakeProvider('builtin');
    v1.compressText = 'from v1';
    const v2 = new FakeProvider('ext');
    v2.preCompressCheckpointApiVersion = 2;
    v2.compressText = 'from v2';
    m.addProvider(v1);
    m.addProvider(v2);
    const transcript: ChatMessage[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'hello' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 't', type: 'function', function: { name: 'x', arguments: '{}' } }],
      },
      { role: 'tool', content: 'tool output', tool_call_id: 't' },
      { role: 'assistant', content: 'answer' },
      { role: 'user', content: '[CONTEXT COMPACTION] earlier summary' },
    ];
    expect(await m.onPreCompress(transcript)).toBe('from v1\n\nfrom v2');
    expect(m.supportsPreCompressCheckpoint()).toBe(true);
    expect(v1.hook('onPreCompress')[0]).toEqual(['onPreCompress', transcript, undefined]);
    expect(v2.hook('onPreCompress')[0]).toEqual([
      'onPreCompress',
      [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'answer' },
      ],
      { requireCheckpoint: false },
    ]);
  });

  it('checkpointRequired: a failing v2 error propagates; no v2 success throws (checklist 33)', async () => {
    const m = new MemoryManager({ checkpointRequired: true });
    const v2 = new FakeProvider('ext');
    v2.preCompressCheckpointApiVersion = 2;
    v2.failOn.add('onPreCompress');
    m.addProvider(v2);
    await expect(m.onPreCompress([])).rejects.toThrow('onPreCompress exploded');
    const onlyV1 = new MemoryManager({ checkpointRequired: true });
    const v1 = new FakeProvider('builtin');
    onlyV1.addProvider(v1);
    const error = await onlyV1.onPreCompress([]).catch((e: unknown) => e);
    expect(MemoryError.isInstance(error)).toBe(true);
    expect(v1.hook('onPreCompress')[0]![2]).toBeUndefined();
    v2.failOn.clear();
    expect(await m.onPreCompress([])).toBe('');
  });

  it('notifyMemoryToolWrite mirrors only committed writes, expands batches, takes previous content from the result', async () => {
    const m = new MemoryManager();
    const ext = new FakeProvider('ext');
    m.addProvider(ext);
    expect(
      m.notifyMemoryToolWrite('{"success":false,"error":"x"}', {
        action: 'add',
        target: 'memory',
        content: 'a',
      }),
    ).toBe(0);
    expect(m.notifyMemoryToolWrite('not json', { action: 'add', target: 'memory', content: 'a' })).toBe(0);
    expect(
      m.notifyMemoryToolWrite('{"success":true,"staged":true}', {
        action: 'add',
        target: 'memory',
        content: 'a',
      }),
    ).toBe(0);
    expect(
      m.notifyMemoryToolWrite(
        JSON.stringify({ success: true, replaced_entry: 'User likes tea' }),
        JSON.stringify({
          action: 'replace',
          target: 'user',
          old_text: 'tea',
          content: 'User likes coffee',
          previous_content: 'FORGED',
        }),
        () => ({ writeOrigin: 'tool', sessionId: 's' }),
      ),
    ).toBe(1);
    expect(
      m.notifyMemoryToolWrite(
        JSON.stringify({ success: true, operations: [{ removed_entry: 'gone' }, {}] }),
        {
          target: 'memory',
          operations: [
            { action: 'remove', old_text: 'go' },
            { action: 'add', content: 'new one' },
          ],
        },
      ),
    ).toBe(2);
    await m.flushPending();
    expect(ext.hook('onMemoryWrite')).toEqual([
      [
        'onMemoryWrite',
        'replace',
        'user',
        'User likes coffee',
        { writeOrigin: 'tool', sessionId: 's', oldText: 'tea', previousContent: 'User likes tea' },
      ],
      ['onMemoryWrite', 'remove', 'memory', 'gone', { oldText: 'go', previousContent: 'gone' }],
      ['onMemoryWrite', 'add', 'memory', 'new one', {}],
    ]);
  });

  it('describeRecall renders singular, plural and count-less forms', () => {
    const m = new MemoryManager();
    const a = new FakeProvider('builtin');
    const b = new FakeProvider('ext');
    m.addProvider(a);
    m.addProvider(b);
    expect(m.describeRecall()).toBe('');
    a.status = { providerLabel: 'Memory', count: 1 };
    b.status = { providerLabel: 'Honcho', count: 3 };
    expect(m.describeRecall()).toBe('🧠 Memory — recalled 1 memory  🧠 Honcho — recalled 3 memories');
    b.status = { providerLabel: 'Honcho', count: 0 };
    a.status = null;
    expect(m.describeRecall()).toBe('🧠 Honcho — recalled relevant memory');
  });

  it('shutdownAll drains, shuts down in reverse order and rejects late work', async () => {
    const logger = createRecordingLogger();
    const m = new MemoryManager({ logger });
    const a = new FakeProvider('builtin');
    const b = new FakeProvider('ext');
    m.addProvider(a);
    m.addProvider(b);
    m.syncAll('u', 'a');
    const state = await m.shutdownAll();
    expect(state).toEqual({
      status: 'drained',
      abandonedWrites: 0,
      abandonedPrefetches: 0,
      activeTasks: 0,
      droppedTasks: 0,
      timedOutProviders: [],
    });
    expect(b.hook('syncTurn')).toHaveLength(1);
    expect(order).toEqual(['ext', 'builtin']);
    m.syncAll('late', 'x');
    expect(logger.records.some((r) => r.level === 'warn' && r.message.includes('after shutdown'))).toBe(true);
    expect(await m.shutdownAll()).toBe(state);
  });

  it('shutdownAll abandons work past the drain deadline and reports it', async () => {
    const m = new MemoryManager({ shutdownDrainMs: 5 });
    const p = new FakeProvider('ext');
    const gate = deferred<void>();
    const running = deferred<void>();
    p.syncImpl = () => {
      running.resolve();
      return gate.promise;
    };
    m.addProvider(p);
    m.syncAll('stuck', 'x');
    m.syncAll('queued', 'y');
    m.queuePrefetchAll('next');
    // The first write is running before the drain starts: on a loaded machine it may not have
    // started within the 5 ms drain, and would then be counted as abandoned, not active.
    await running.promise;
    const state = await m.shutdownAll();
    expect(state).toEqual({
      status: 'timeout',
      abandonedWrites: 1,
      abandonedPrefetches: 1,
      activeTasks: 1,
      droppedTasks: 0,
      timedOutProviders: [],
    });
    expect(p.hook('shutdown')).toHaveLength(1);
    gate.resolve();
  });
});
