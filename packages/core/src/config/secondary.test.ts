import { describe, expect, it } from 'vitest';
import { memoryConfigFrom } from './hermes-config';

describe('memory.secondary (tiered memory)', () => {
  it('absent: no secondaries, no problems, the default recall budget', () => {
    const config = memoryConfigFrom({ memory: { provider: 'honcho' } });
    expect(config.secondary).toEqual([]);
    expect(config.problems).toEqual([]);
    expect(config.recallBudgetChars).toBe(12_000);
  });

  it('reads ids and {provider, prefetch_timeout_ms} mappings, in order', () => {
    const config = memoryConfigFrom({
      memory: {
        provider: 'honcho',
        secondary: ['hivemind', { provider: 'holographic', prefetch_timeout_ms: '1500' }],
        recall_budget_chars: 6000,
      },
    });
    expect(config.secondary).toEqual([
      { provider: 'hivemind' },
      { provider: 'holographic', prefetchTimeoutMs: 1500 },
    ]);
    expect(config.recallBudgetChars).toBe(6000);
    expect(config.problems).toEqual([]);
  });

  it('accepts a comma-separated string as the Python config writer may leave it', () => {
    expect(memoryConfigFrom({ memory: { secondary: 'hivemind, holographic' } }).secondary).toEqual([
      { provider: 'hivemind' },
      { provider: 'holographic' },
    ]);
  });

  it('refuses builtin, the canonical provider, repeats, non-ids and bad timeouts with clear problems', () => {
    const config = memoryConfigFrom({
      memory: {
        provider: 'honcho',
        secondary: ['builtin', 'honcho', 'hivemind', 'hivemind', 'Bad Id', 42, { provider: 'mem0', prefetch_timeout_ms: 0 }],
      },
    });
    expect(config.secondary).toEqual([{ provider: 'hivemind' }, { provider: 'mem0' }]);
    expect(config.problems.map((p) => p.message)).toEqual([
      "'memory.secondary' cannot list 'builtin' (the built-in store is always on)",
      "'memory.secondary' lists 'honcho', which is already memory.provider",
      "'memory.secondary' lists 'hivemind' twice",
      `'memory.secondary' entry "Bad Id" is not a provider id`,
      "'memory.secondary' entry 42 is not a provider id",
      "'memory.secondary' 'mem0': prefetch_timeout_ms must be a positive integer (got 0)",
    ]);
  });

  it('a mapping where a list belongs is one problem', () => {
    const config = memoryConfigFrom({ memory: { secondary: { hivemind: true } } });
    expect(config.secondary).toEqual([]);
    expect(config.problems.map((p) => p.message)).toEqual(["'memory.secondary' must be a list of provider ids"]);
  });
});
