import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../llm/types';
import { createRecordingLogger } from '../logging/logger';
import { MemoryProvider } from '../provider/memory-provider';
import type { MemoryTarget, MemoryWriteAction, ToolSchema } from '../provider/types';
import { ManualClock } from '../resilience/clock';
import { MemoryManager } from './memory-manager';
import { composeRecall, sectionLabel } from './recall-compose';

/**
 * Tiered memory (decision 0130): one canonical external provider receives the conversation's
 * writes, secondaries join read-only with labelled, budgeted, folded recall and their own budgets.
 */

const tool = (name: string): ToolSchema => ({
  name,
  description: name,
  parameters: { type: 'object', properties: {} },
});

/** A provider double that records which hooks reached it. */
class Peer extends MemoryProvider {
  readonly hooks: string[] = [];
  recall = '';
  prefetchImpl?: () => Promise<string>;
  tools: ToolSchema[] = [];
  override receivesWritesAsSecondary = false;

  constructor(readonly name: string) {
    super();
  }
  isAvailable(): boolean {
    return true;
  }
  initialize(): void {}
  getToolSchemas(): ToolSchema[] {
    return this.tools;
  }
  override async prefetch(): Promise<string> {
    this.hooks.push('prefetch');
    return this.prefetchImpl ? this.prefetchImpl() : this.recall;
  }
  override queuePrefetch(): void {
    this.hooks.push('queuePrefetch');
  }
  override syncTurn(): void {
    this.hooks.push('syncTurn');
  }
  override handleToolCall(name: string): string {
    this.hooks.push(`tool:${name}`);
    return JSON.stringify({ from: this.name });
  }
  override onSessionEnd(_messages: readonly ChatMessage[]): void {
    this.hooks.push('onSessionEnd');
  }
  override onSessionSwitch(): boolean {
    this.hooks.push('onSessionSwitch');
    return true;
  }
  override onPreCompress(): string {
    this.hooks.push('onPreCompress');
    return '';
  }
  override onMemoryWrite(_action: MemoryWriteAction, _target: MemoryTarget, content: string): void {
    this.hooks.push(`onMemoryWrite:${content}`);
  }
  override onDelegation(): void {
    this.hooks.push('onDelegation');
  }
}

const warnings = (logger: ReturnType<typeof createRecordingLogger>) =>
  logger.records.filter((r) => r.level === 'warn').map((r) => r.message);

function tiered(options: ConstructorParameters<typeof MemoryManager>[0] = {}) {
  const logger = createRecordingLogger();
  const manager = new MemoryManager({ logger, ...options });
  const builtin = new Peer('builtin');
  const canonical = new Peer('honcho');
  const secondary = new Peer('hivemind');
  expect(manager.addProvider(builtin)).toBe(true);
  expect(manager.addProvider(canonical)).toBe(true);
  expect(manager.addProvider(secondary, { role: 'secondary' })).toBe(true);
  return { manager, logger, builtin, canonical, secondary };
}

const conversation: ChatMessage[] = [
  { role: 'user', content: 'I moved to Lisbon' },
  { role: 'assistant', content: 'Noted.' },
];

describe('tiered memory: registration', () => {
  it('a secondary joins beside the canonical provider; a second canonical is still refused', () => {
    const { manager, logger } = tiered();
    expect(manager.providers.map((p) => p.name)).toEqual(['builtin', 'honcho', 'hivemind']);
    expect(manager.providerRole('builtin')).toBe('builtin');
    expect(manager.providerRole('honcho')).toBe('canonical');
    expect(manager.providerRole('hivemind')).toBe('secondary');
    expect(manager.providerRole('nope')).toBeNull();
    expect(manager.addProvider(new Peer('mem0'))).toBe(false);
    expect(warnings(logger).join('\n')).toMatch(/external provider 'honcho' is already registered/);
    expect(manager.addProvider(new Peer('holographic'), { role: 'secondary' })).toBe(true);
  });

  it('the canonical provider registered after a secondary still comes before it', () => {
    const manager = new MemoryManager();
    manager.addProvider(new Peer('hivemind'), { role: 'secondary' });
    manager.addProvider(new Peer('holographic'));
    manager.addProvider(new Peer('builtin'));
    expect(manager.providers.map((p) => p.name)).toEqual(['builtin', 'holographic', 'hivemind']);
  });

  it('a secondary whose tool name is taken or reserved is refused, naming the tools', () => {
    const { manager, logger, canonical } = tiered();
    canonical.tools = [tool('honcho_search')];
    manager.refreshToolRoutes();
    const clash = new Peer('mem0');
    clash.tools = [tool('honcho_search'), tool('memory'), tool('mem0_search')];
    expect(manager.addProvider(clash, { role: 'secondary' })).toBe(false);
    expect(warnings(logger).join('\n')).toMatch(
      /Refused secondary memory provider 'mem0': tool names already taken or reserved: honcho_search, memory\./,
    );
    expect(manager.getProvider('mem0')).toBeNull();
  });

  it('bad registration options are refused with a clear reason', () => {
    const logger = createRecordingLogger();
    const manager = new MemoryManager({ logger });
    expect(manager.addProvider(new Peer('builtin'), { role: 'secondary' })).toBe(false);
    expect(manager.addProvider(new Peer('a'), { role: 'tertiary' as 'secondary' })).toBe(false);
    expect(manager.addProvider(new Peer('b'), { role: 'secondary', prefetchTimeoutMs: 0 })).toBe(false);
    expect(manager.addProvider(new Peer('c'), { prefetchTimeoutMs: 100 })).toBe(false);
    expect(warnings(logger)).toEqual([
      "Refused memory provider 'builtin': the builtin store cannot be a secondary provider.",
      "Refused memory provider 'a': unknown role 'tertiary' (expected 'canonical' or 'secondary').",
      "Refused memory provider 'b': prefetchTimeoutMs must be a finite number > 0 (got 0).",
      "Refused memory provider 'c': prefetchTimeoutMs is a secondary provider option.",
    ]);
    expect(() => new MemoryManager({ recallBudgetChars: 0 })).toThrow(/recallBudgetChars/);
  });

  it("a secondary's tools are routed to it", async () => {
    const { manager, secondary } = tiered();
    secondary.tools = [tool('hivemind_list_peers')];
    manager.refreshToolRoutes();
    expect(JSON.parse(await manager.handleToolCall('hivemind_list_peers', {}))).toEqual({ from: 'hivemind' });
  });
});

describe('tiered memory: writes reach only the canonical provider', () => {
  it('turns, mirrored writes, session end, pre-compress and delegation skip a read-only secondary', async () => {
    const { manager, builtin, canonical, secondary } = tiered();
    manager.syncAll('I moved to Lisbon', 'Noted.');
    manager.onMemoryWrite('add', 'user', 'Lives in Lisbon');
    await manager.onSessionEnd(conversation);
    await manager.onPreCompress(conversation);
    await manager.onDelegation('task', 'result');
    await manager.flushPending();
    const writes = ['syncTurn', 'onMemoryWrite:Lives in Lisbon', 'onSessionEnd', 'onPreCompress', 'onDelegation'];
    expect(canonical.hooks).toEqual(writes);
    expect(builtin.hooks).toEqual(writes.filter((h) => !h.startsWith('onMemoryWrite')));
    expect(secondary.hooks).toEqual([]);
  });

  it('a session boundary switches the secondary without handing it the transcript', async () => {
    const { manager, canonical, secondary } = tiered();
    expect(await manager.commitSessionBoundary(conversation, { newSessionId: 's2' })).toBe(true);
    expect(canonical.hooks).toEqual(['onSessionEnd', 'onSessionSwitch']);
    expect(secondary.hooks).toEqual(['onSessionSwitch']);
  });

  it('reads reach the secondary: prefetch, queued prefetch', async () => {
    const { manager, secondary } = tiered();
    await manager.prefetchAll('where do I live?');
    manager.queuePrefetchAll('where do I live?');
    await manager.flushPending();
    expect(secondary.hooks).toEqual(['prefetch', 'queuePrefetch']);
  });

  it('a secondary that declares receivesWritesAsSecondary gets the writes too', async () => {
    const { manager, secondary } = tiered();
    secondary.receivesWritesAsSecondary = true;
    manager.syncAll('I moved to Lisbon', 'Noted.');
    manager.onMemoryWrite('add', 'user', 'Lives in Lisbon');
    await manager.onSessionEnd(conversation);
    await manager.flushPending();
    expect(secondary.hooks).toEqual(['syncTurn', 'onMemoryWrite:Lives in Lisbon', 'onSessionEnd']);
  });
});

describe('tiered memory: recall', () => {
  it('with no secondary, recall is joined exactly as before (no labels)', async () => {
    const manager = new MemoryManager();
    const builtin = new Peer('builtin');
    const external = new Peer('holographic');
    builtin.recall = 'builtin says hi';
    external.recall = '- User lives in Lisbon';
    manager.addProvider(builtin);
    manager.addProvider(external);
    expect(await manager.prefetchAllRaw('where?')).toBe('builtin says hi\n\n- User lives in Lisbon');
  });

  it('recall from each provider is labelled, and a fact both recalled appears once', async () => {
    const { manager, canonical, secondary } = tiered();
    canonical.recall = '- User lives in Lisbon.\n- User works on compilers';
    secondary.recall = '- user lives in   Lisbon\n- Peer @ana offers Rust reviews';
    const raw = await manager.prefetchAllRaw('who can review my Rust?');
    expect(raw).toBe(
      [
        sectionLabel('honcho'),
        '- User lives in Lisbon.\n- User works on compilers',
        '',
        sectionLabel('hivemind'),
        '- Peer @ana offers Rust reviews',
      ].join('\n'),
    );
    const block = await manager.prefetchAll('who can review my Rust?');
    expect(block.match(/<memory-context>/g)).toHaveLength(1);
    expect(block).toContain('## Recall from hivemind');
  });

  it('one budget across providers: the canonical first, the secondary gets what is left', async () => {
    const { manager, canonical, secondary } = tiered({ recallBudgetChars: 400 });
    canonical.recall = Array.from({ length: 5 }, (_, i) => `- canonical fact number ${i} about the user`).join('\n');
    secondary.recall = Array.from({ length: 10 }, (_, i) => `- peer fact number ${i} from the network`).join('\n');
    const raw = await manager.prefetchAllRaw('tell me');
    expect(raw.length).toBeLessThanOrEqual(400);
    expect(raw).toContain('canonical fact number 4');
    expect(raw).toContain('peer fact number 0');
    expect(raw).not.toContain('peer fact number 9');
    expect(raw.endsWith('\n')).toBe(false);
  });

  it('a failing secondary never affects the canonical recall, and its health shows it', async () => {
    const { manager, canonical, secondary } = tiered();
    canonical.recall = '- User lives in Lisbon';
    secondary.prefetchImpl = () => Promise.reject(new Error('homeserver down'));
    expect(await manager.prefetchAllRaw('where?')).toBe(`${sectionLabel('honcho')}\n- User lives in Lisbon`);
    expect(manager.getProviderHealth('hivemind')?.status).not.toBe('ok');
    expect(manager.getProviderHealth('honcho')?.status).toBe('ok');
  });

  it("a hung secondary is cut at its own prefetch budget, not the canonical's", async () => {
    const clock = new ManualClock();
    const manager = new MemoryManager({ clock, externalPrefetchTimeoutMs: 8000 });
    const canonical = new Peer('holographic');
    const secondary = new Peer('hivemind');
    canonical.recall = '- User lives in Lisbon';
    secondary.prefetchImpl = () => new Promise<string>(() => {});
    manager.addProvider(canonical);
    manager.addProvider(secondary, { role: 'secondary', prefetchTimeoutMs: 500 });
    let settled: string | undefined;
    void manager.prefetchAllRaw('where?').then((r) => {
      settled = r;
    });
    await clock.advance(499);
    expect(settled).toBeUndefined();
    await clock.advance(1);
    expect(settled).toBe(`${sectionLabel('holographic')}\n- User lives in Lisbon`);
  });
});

describe('composeRecall', () => {
  it('folds repeats inside a section and across sections, never short lines', () => {
    const out = composeRecall(
      [
        { provider: 'a', text: '- The user likes green tea\n- the user likes green tea!\nok\nok' },
        { provider: 'b', text: '* The user likes green tea\nok' },
      ],
      { budgetChars: 1000 },
    );
    expect(out).toBe(`${sectionLabel('a')}\n- The user likes green tea\nok\nok\n\n${sectionLabel('b')}\nok`);
  });

  it('a line cut by the budget is not folded out of a later section', () => {
    // The same fact, padded in a and plain in b: a's copy is cut by the budget, b's fits.
    const padded = `- the user   prefers${' '.repeat(50)}morning meetings`;
    const out = composeRecall(
      [
        { provider: 'a', text: `- ${'x'.repeat(60)} first\n${padded}` },
        { provider: 'b', text: 'the user prefers morning meetings' },
      ],
      { budgetChars: 16 + 1 + 68 + 2 + 16 + 1 + 33 },
    );
    expect(out).not.toContain(padded);
    expect(out).toContain(`${sectionLabel('b')}\nthe user prefers morning meetings`);
  });

  it('drops a section rather than cutting it to a stub, and gives "" for nothing', () => {
    expect(composeRecall([{ provider: 'a', text: '  \n' }], { budgetChars: 100 })).toBe('');
    expect(composeRecall([{ provider: 'a', text: 'y'.repeat(500) }], { budgetChars: 100 })).toBe('');
  });
});
