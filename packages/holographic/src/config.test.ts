import fs from 'node:fs';
import path from 'node:path';
import {
  type InitContext,
  MemoryManager,
  SettingsError,
  getConfigValue,
  loadHermesConfig,
  readProviderConfig,
  silentLogger,
} from '@hermes-memory/core';
import { collectLogs } from '@hermes-memory/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type HolographicProvider, createHolographicProvider } from './provider';
import { expandDbPathTemplate, resolveSettings, sanitizePathPart } from './settings';
import { tempDir } from './test-helpers';

const live: HolographicProvider[] = [];
afterEach(() => {
  for (const p of live.splice(0)) p.shutdown();
});
function ctx(hermesHome: string, extra: Partial<InitContext> = {}): InitContext {
  return { hermesHome, platform: 'cli', agentContext: 'primary', logger: silentLogger, ...extra };
}

describe('getConfigSchema / saveConfig', () => {
  it('lists the settings, including the reference four', () => {
    const keys = createHolographicProvider()
      .getConfigSchema()
      .map((f) => f.key);
    for (const key of [
      'db_path',
      'auto_extract',
      'default_trust',
      'hrr_dim',
      'embeddings',
      'db_path_template',
    ])
      expect(keys).toContain(key);
  });

  it('writes where the Python plugin reads (plugins.hermes-memory-store), numbers as numbers', () => {
    const home = tempDir();
    fs.writeFileSync(
      path.join(home, 'config.yaml'),
      'memory:\n  provider: holographic\n  holographic:\n    default_trust: 0.4\n    compat: reference\n',
    );
    const p = createHolographicProvider();
    p.saveConfig({ auto_extract: true, defaultTrust: '0.7', hrr_dim: '512', unknown_key: 'x' }, home);
    const text = fs.readFileSync(path.join(home, 'config.yaml'), 'utf8');
    expect(text).toMatch(/plugins:\n {2}hermes-memory-store:\n/);
    expect(text).toMatch(/default_trust: 0\.7\n/);
    expect(text).toMatch(/hrr_dim: 512\n/);
    const config = loadHermesConfig(home);
    expect(getConfigValue(config, 'plugins.hermes-memory-store')).toEqual({
      auto_extract: true,
      default_trust: 0.7,
      hrr_dim: 512,
    });
    // The same keys leave the older block, so the two places never disagree; others stay.
    expect(config.memory.providerConfig('holographic')).toEqual({ compat: 'reference' });
    expect(fs.statSync(path.join(home, 'config.yaml')).mode & 0o777).toBe(0o600);
    const read = readProviderConfig(config, p.configPaths());
    expect(read.conflicts).toEqual([]);
    const settings = resolveSettings(read.values, home);
    expect(settings).toMatchObject({
      autoExtract: true,
      defaultTrust: 0.7,
      hrrDim: 512,
      compat: 'reference',
    });
  });

  it('refuses to save values that do not fit the schema', () => {
    const home = tempDir();
    const p = createHolographicProvider();
    expect(() => p.saveConfig({ hrr_dim: 'abc' }, home)).toThrow(/'hrr_dim' must be an integer, got "abc"/);
    expect(() => p.saveConfig({ default_trust: 2 }, home)).toThrow(/'default_trust' must be at most 1/);
    expect(() => p.saveConfig({ memory_mode: 'sometimes' }, home)).toThrow(/'memory_mode' must be one of/);
    expect(fs.existsSync(path.join(home, 'config.yaml'))).toBe(false);
  });

  it("stores this profile's default db path as the portable $HERMES_HOME placeholder, others as given", () => {
    const home = tempDir();
    const p = createHolographicProvider();
    const dbPath = () => getConfigValue(loadHermesConfig(home), 'plugins.hermes-memory-store.db_path');
    p.saveConfig({ db_path: path.join(home, 'memory_store.db') }, home);
    expect(dbPath()).toBe('$HERMES_HOME/memory_store.db');
    p.saveConfig({ db_path: '/srv/facts.db' }, home);
    expect(dbPath()).toBe('/srv/facts.db');
  });
});

describe('a Python-style config.yaml (test/fixtures/python-home)', () => {
  /** The fixture in a fresh home; `holographic` adds a `memory.holographic` block. */
  function pythonHome(holographic = ''): string {
    const home = tempDir();
    const fixture = fs.readFileSync(
      path.join(__dirname, '..', 'test', 'fixtures', 'python-home', 'config.yaml'),
      'utf8',
    );
    fs.writeFileSync(path.join(home, 'config.yaml'), fixture.replace('memory:\n', `memory:\n${holographic}`));
    return home;
  }

  it("opens the Python agent's db_path and settings through the manager (not a new empty memory_store.db)", async () => {
    const home = pythonHome();
    const manager = new MemoryManager();
    const p = createHolographicProvider();
    manager.addProvider(p);
    await manager.initializeAll('s', {
      hermesHome: home,
      config: loadHermesConfig(home),
      logger: silentLogger,
    });
    try {
      expect(p.factStore?.dbPath).toBe(path.join(home, 'facts', 'custom_store.db'));
      expect(p.factStore?.defaultTrust).toBe(0.6);
      expect(fs.existsSync(path.join(home, 'memory_store.db'))).toBe(false);
    } finally {
      await manager.shutdownAll();
    }
  });

  it("warns when memory.holographic disagrees, and uses the Python plugin's value", async () => {
    const home = pythonHome('  holographic:\n    db_path: $HERMES_HOME/other.db\n    default_trust: 0.6\n');
    const logs = collectLogs();
    const manager = new MemoryManager({ logger: logs.logger });
    const p = createHolographicProvider();
    manager.addProvider(p);
    await manager.initializeAll('s', {
      hermesHome: home,
      config: loadHermesConfig(home),
      logger: logs.logger,
    });
    try {
      expect(p.factStore?.dbPath).toBe(path.join(home, 'facts', 'custom_store.db'));
      const warnings = logs.messages('warn').join('\n');
      expect(warnings).toContain(
        'plugins.hermes-memory-store.db_path = "$HERMES_HOME/facts/custom_store.db" is used; memory.holographic.db_path = "$HERMES_HOME/other.db" is ignored',
      );
      // "0.6" (the Python wizard's string) and 0.6 are the same setting: no conflict.
      expect(warnings).not.toContain('default_trust');
    } finally {
      await manager.shutdownAll();
    }
  });

  it('settings passed in code are checked as strictly as config.yaml (no silent defaults)', () => {
    const home = tempDir();
    expect(() => resolveSettings({ memory_mode: 'sometimes' }, home)).toThrow(
      /'memory_mode' must be 'hybrid' or 'tools'/,
    );
    expect(() => resolveSettings({ embeddings: 'maybe' }, home)).toThrow(
      /'embeddings' must be auto, true or false/,
    );
    expect(() => resolveSettings({ autoExtract: 'maybe' }, home)).toThrow(
      /'auto_extract' must be true or false/,
    );
    expect(
      resolveSettings({ auto_extract: 'yes', hrr_enabled: 'off', embeddings: 'false' }, home),
    ).toMatchObject({
      autoExtract: true,
      hrrEnabled: false,
      embeddings: false,
    });
  });

  it('the prefetch bar settings passed in code are checked too: an error naming the key', () => {
    const home = tempDir();
    expect(() => resolveSettings({ prefetchMinRelevance: 'high' }, home)).toThrow(
      /'prefetch_min_relevance' must be a number/,
    );
    expect(() => resolveSettings({ prefetch_min_relevance: 1.5 }, home)).toThrow(
      /'prefetch_min_relevance' must be between 0 and 1/,
    );
    expect(() => resolveSettings({ prefetchLimit: 2.5 }, home)).toThrow(
      /'prefetch_limit' must be an integer from 1 to 50/,
    );
    expect(() => resolveSettings({ prefetch_limit: 'many' }, home)).toThrow(
      /'prefetch_limit' must be a number/,
    );
    expect(() => resolveSettings({ semanticThreshold: 2 }, home)).toThrow(
      /'semantic_threshold' must be between -1 and 1/,
    );
    expect(
      resolveSettings({ prefetch_min_relevance: '0.6', prefetchLimit: '3', semantic_threshold: '0.5' }, home),
    ).toMatchObject({ prefetchMinRelevance: 0.6, prefetchLimit: 3, semanticThreshold: 0.5 });
    expect(resolveSettings({}, home)).toMatchObject({
      prefetchMinRelevance: 0.45,
      prefetchLimit: 5,
      semanticThreshold: undefined,
    });
  });

  it('a malformed value stops the provider with a message naming it (never a silent default)', () => {
    const home = tempDir();
    const p = createHolographicProvider();
    const init = () =>
      p.initialize('s', ctx(home, { providerConfig: { hrr_dim: 'abc', auto_extract: 'maybe' } }));
    expect(init).toThrow(/'hrr_dim' must be an integer, got "abc"/);
    expect(init).toThrow(/'auto_extract' must be true or false, got "maybe"/);
  });
});

describe('db_path_template', () => {
  it('sanitises placeholder values', () => {
    expect(sanitizePathPart('a/b:c')).toBe('a-b-c');
    expect(sanitizePathPart(undefined)).toBe('default');
    expect(sanitizePathPart('')).toBe('default');
    expect(sanitizePathPart('John Smith')).toBe('John Smith');
    expect(
      expandDbPathTemplate('holographic/{profile}/{platform}/{chat}-{user}.db', '/h', {
        profile: 'personal',
        platform: 'telegram',
        chat: 'dm:123',
        user: 'user:42',
      }),
    ).toBe('/h/holographic/personal/telegram/dm-123-user-42.db');
  });

  it('refuses ids the mapping would merge with another (§12 red team: "..", " ", "\\n" all became default; a\\0b became ab)', () => {
    for (const bad of [
      '..',
      ' ',
      '\n',
      'a\0b',
      '.',
      '../../etc',
      'a..b',
      ' dm:1',
      'dm:1 ',
      'tab\there',
      '\x7f',
    ]) {
      expect(() => sanitizePathPart(bad, 'chat'), JSON.stringify(bad)).toThrow(SettingsError);
    }
    expect(() =>
      expandDbPathTemplate('holographic/{platform}/{chat}.db', '/h', { platform: 'telegram', chat: 'a\0b' }),
    ).toThrow(/the \{chat\} value "a\\u0000b" cannot name a database file/);
    // Distinct ordinary ids keep distinct files.
    const files = ['dm:1', 'dm:2', 'group 9', 'Ünïcödé', '-1001234'].map((chat) =>
      expandDbPathTemplate('{chat}.db', '/h', { chat }),
    );
    expect(new Set(files).size).toBe(files.length);
  });

  it('gives a DM and a group chat separate databases; without a template db_path is unchanged', async () => {
    const home = tempDir();
    const template = 'holographic/{profile}/{platform}/{chat}-{user}.db';
    const dm = createHolographicProvider({ dbPathTemplate: template, embeddings: false });
    dm.initialize('s', ctx(home, { platform: 'telegram', chatId: 'dm:1', userId: 'u1', agentIdentity: 'p' }));
    const group = createHolographicProvider({ db_path_template: template, embeddings: false } as never);
    group.initialize(
      's',
      ctx(home, { platform: 'telegram', chatId: 'group:9', userId: 'u1', agentIdentity: 'p' }),
    );
    live.push(dm, group);
    await dm.handleToolCall('fact_store', { action: 'add', content: 'DM secret: the code word is heron' });
    expect(dm.backupPaths()).toEqual([path.join(home, 'holographic/p/telegram/dm-1-u1.db')]);
    expect(group.backupPaths()).toEqual([path.join(home, 'holographic/p/telegram/group-9-u1.db')]);
    const found = JSON.parse(
      await group.handleToolCall('fact_store', { action: 'search', query: 'code word heron' }),
    );
    expect(found.count).toBe(0);
    const plain = createHolographicProvider({ embeddings: false });
    plain.initialize('s', ctx(home, { chatId: 'x' }));
    live.push(plain);
    expect(plain.backupPaths()).toEqual([path.join(home, 'memory_store.db')]);
  });
});

describe('embeddings setting', () => {
  const fakeEmbedder = {
    id: 'host-embedder',
    dimensions: 3,
    embed: async (texts: readonly string[]) => texts.map(() => new Float32Array([1, 0, 0])),
  };

  it("defaults to 'auto': the host's embedder when given", async () => {
    const p = createHolographicProvider();
    p.initialize('s', ctx(tempDir(), { embedder: fakeEmbedder }));
    live.push(p);
    await p.ready();
    expect(p.factStore?.embedder?.id).toBe('host-embedder');
  });

  it("'auto' without a host embedder loads the bundled default from @hermes-memory/embeddings", async () => {
    const p = createHolographicProvider();
    p.initialize('s', ctx(tempDir()));
    live.push(p);
    await p.ready();
    expect(p.factStore?.embedder?.id).toMatch(/potion|model2vec/i);
    await p.handleToolCall('fact_store', { action: 'add', content: 'Jane adopted a puppy' });
    // No word in common: only the semantic signal can find it (cosine 0.61, above potion's 0.45).
    const out = JSON.parse(
      await p.handleToolCall('fact_store', { action: 'search', query: 'her new pet dog' }),
    );
    expect(out.results[0].content).toBe('Jane adopted a puppy');
    expect(p.factStore?.pendingCount()).toBe(0);
  });

  it('false keeps retrieval lexical even when an embedder is offered', async () => {
    const p = createHolographicProvider({ embeddings: 'false' });
    p.initialize('s', ctx(tempDir(), { embedder: fakeEmbedder }));
    live.push(p);
    await p.ready();
    expect(p.factStore?.embedder).toBeUndefined();
  });
});
