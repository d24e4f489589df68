import { describe, expect, it } from 'vitest';
import { createRecordingLogger } from '../logging/logger';
import { MemoryProvider } from '../provider/memory-provider';
import type { ToolSchema } from '../provider/types';
import { MemoryManager } from './memory-manager';
import { type FunctionToolEntry, injectMemoryProviderTools, memoryProviderToolsEnabled } from './toolsets';

class ToolProvider extends MemoryProvider {
  constructor(
    readonly name: string,
    private readonly names: string[],
  ) {
    super();
  }
  isAvailable(): boolean {
    return true;
  }
  initialize(): void {}
  getToolSchemas(): ToolSchema[] {
    return this.names.map((name) => ({
      name,
      description: `${name} tool`,
      parameters: { type: 'object', properties: {} },
    }));
  }
}

const composites: Record<string, string[]> = {
  'hermes-cli': ['terminal', 'core'],
  core: ['file', 'memory'],
  web: ['web_search'],
  loop: ['loop'],
};
const resolveToolset = (name: string) => composites[name];

describe('memoryProviderToolsEnabled', () => {
  it('follows the reference rules', () => {
    expect(memoryProviderToolsEnabled(null)).toBe(true);
    expect(memoryProviderToolsEnabled(undefined, [])).toBe(true);
    expect(memoryProviderToolsEnabled(null, ['memory'])).toBe(false);
    expect(memoryProviderToolsEnabled(['memory'], ['memory'], { memoryToolPresent: true })).toBe(false);
    expect(memoryProviderToolsEnabled([])).toBe(false);
    expect(memoryProviderToolsEnabled([], null, { memoryToolPresent: true })).toBe(true);
    expect(memoryProviderToolsEnabled(['web', 'memory'])).toBe(true);
    expect(memoryProviderToolsEnabled(['web'])).toBe(false);
    expect(memoryProviderToolsEnabled(['web'], null, { memoryToolPresent: true })).toBe(true);
  });

  it('expands composite toolsets (nested, cycle-safe, throwing resolvers count as no match)', () => {
    expect(memoryProviderToolsEnabled(['hermes-cli'], null, { resolveToolset })).toBe(true);
    expect(memoryProviderToolsEnabled(['hermes-cli'])).toBe(false);
    expect(memoryProviderToolsEnabled(['web', 'loop'], null, { resolveToolset })).toBe(false);
    expect(
      memoryProviderToolsEnabled(['x'], null, {
        resolveToolset: () => {
          throw new Error('bad');
        },
      }),
    ).toBe(false);
  });
});

describe('injectMemoryProviderTools', () => {
  const manager = () => {
    const m = new MemoryManager();
    m.addProvider(new ToolProvider('ext', ['ext_search', 'ext_remember']));
    return m;
  };

  it('appends wrapped schemas for tools not yet present, dedupes by name and records valid names', () => {
    const m = manager();
    const tools: FunctionToolEntry[] = [
      { type: 'function', function: { name: 'terminal', description: '', parameters: {} } },
      { type: 'function', function: { name: 'ext_search', description: 'host copy', parameters: {} } },
    ];
    const valid = new Set(['terminal', 'ext_search']);
    expect(injectMemoryProviderTools(tools, m, { validToolNames: valid })).toBe(1);
    expect(tools.map((t) => t.function.name)).toEqual(['terminal', 'ext_search', 'ext_remember']);
    expect(tools[2]).toEqual({
      type: 'function',
      function: {
        name: 'ext_remember',
        description: 'ext_remember tool',
        parameters: { type: 'object', properties: {} },
      },
    });
    expect([...valid]).toContain('ext_remember');
    // Idempotent: a second injection adds nothing.
    expect(injectMemoryProviderTools(tools, m, { validToolNames: valid })).toBe(0);
    expect(tools).toHaveLength(3);
  });

  it('adds nothing when gated off and logs once at INFO', () => {
    const m = manager();
    const logger = createRecordingLogger();
    const tools: FunctionToolEntry[] = [];
    expect(injectMemoryProviderTools(tools, m, { enabledToolsets: ['web'], logger })).toBe(0);
    expect(injectMemoryProviderTools(tools, m, { enabledToolsets: [], logger })).toBe(0);
    expect(injectMemoryProviderTools(tools, m, { disabledToolsets: ['memory'], logger })).toBe(0);
    expect(tools).toEqual([]);
    const infos = logger.records.filter((r) => r.level === 'info');
    expect(infos).toHaveLength(1);
    expect(infos[0]?.message).toContain('not injected');
  });

  it('a memory tool already in the list or a composite toolset opens the gate', () => {
    const m = manager();
    const tools: FunctionToolEntry[] = [
      { type: 'function', function: { name: 'memory', description: '', parameters: {} } },
    ];
    expect(injectMemoryProviderTools(tools, m, { enabledToolsets: ['web'] })).toBe(2);
    const other: FunctionToolEntry[] = [];
    expect(injectMemoryProviderTools(other, m, { enabledToolsets: ['hermes-cli'], resolveToolset })).toBe(2);
  });
});

describe('gated-off system prompt', () => {
  it('buildSystemPrompt({includeExternal: false}) withholds the external block', () => {
    class Block extends ToolProvider {
      override systemPromptBlock(): string {
        return `${this.name} block`;
      }
    }
    const m = new MemoryManager();
    m.addProvider(new Block('builtin', []));
    m.addProvider(new Block('ext', []));
    expect(m.buildSystemPrompt()).toBe('builtin block\n\next block');
    expect(m.buildSystemPrompt({ includeExternal: false })).toBe('builtin block');
  });
});
