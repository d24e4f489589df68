import fs from 'node:fs';
import path from 'node:path';
import { type InitContext, loadHermesConfig, silentLogger } from '@hermes-memory/core';
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

  it('writes memory.holographic.* to config.yaml, which the next initialize reads', () => {
    const home = tempDir();
    const p = createHolographicProvider();
    p.saveConfig({ auto_extract: 'true', defaultTrust: '0.7', unknown_key: 'x' }, home);
    const config = loadHermesConfig(home);
    expect(config.memory.providerConfig('holographic')).toEqual({
      auto_extract: 'true',
      default_trust: '0.7',
    });
    expect(fs.statSync(path.join(home, 'config.yaml')).mode & 0o777).toBe(0o600);
    const settings = resolveSettings(config.memory.providerConfig('holographic'), home);
    expect(settings.autoExtract).toBe(true);
    expect(settings.defaultTrust).toBe(0.7);
  });

  it("stores this profile's default db path as the portable $HERMES_HOME placeholder, others as given", () => {
    const home = tempDir();
    const p = createHolographicProvider();
    p.saveConfig({ db_path: path.join(home, 'memory_store.db') }, home);
    expect(loadHermesConfig(home).memory.providerConfig('holographic').db_path).toBe(
      '$HERMES_HOME/memory_store.db',
    );
    p.saveConfig({ db_path: '/srv/facts.db' }, home);
    expect(loadHermesConfig(home).memory.providerConfig('holographic').db_path).toBe('/srv/facts.db');
  });
});

describe('db_path_template', () => {
  it('sanitises placeholder values', () => {
    expect(sanitizePathPart('a/b:c')).toBe('a-b-c');
    expect(sanitizePathPart('../../etc')).toBe('--etc');
    expect(sanitizePathPart(undefined)).toBe('default');
    expect(
      expandDbPathTemplate('holographic/{profile}/{platform}/{chat}-{user}.db', '/h', {
        profile: 'personal',
        platform: 'telegram',
        chat: 'dm:123',
        user: 'user:42',
      }),
    ).toBe('/h/holographic/personal/telegram/dm-123-user-42.db');
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
    // No word in common: only the semantic signal can find it.
    const out = JSON.parse(
      await p.handleToolCall('fact_store', { action: 'search', query: 'which pets does she have?' }),
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
