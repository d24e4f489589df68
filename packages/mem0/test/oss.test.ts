import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  type ChatRequest,
  type ChatResponse,
  createProviderFactoryContext,
  type Embedder,
  type LlmClient,
  type Logger,
} from '@hermes-memory/core';
import { createDefaultEmbedder, HashEmbedder } from '@hermes-memory/embeddings';
import { describe, expect, it } from 'vitest';
import { Mem0Provider } from '../src';
import { resolveOssVectorStore } from '../src/backend/oss';
import { initContext, tempHome, tool } from './helpers';

// Nothing may land in the real ~/.mem0: os.homedir() follows HOME, which this file points away.
const fakeUserHome = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-mem0-userhome-'));
process.env.HOME = fakeUserHome;

const OSS = { vector_store: { provider: 'memory' } };

/** A scripted stand-in for the agent's LLM: mem0's extraction prompt in, a fixed JSON answer out. */
class ScriptedLlm implements LlmClient {
  readonly model = 'scripted';
  readonly requests: ChatRequest[] = [];
  constructor(private readonly facts: string[]) {}
  async chat(request: ChatRequest): Promise<ChatResponse> {
    this.requests.push(request);
    return {
      content: JSON.stringify({ memory: this.facts.map((text, i) => ({ id: String(i), text })) }),
      toolCalls: [],
      finishReason: 'stop',
      model: this.model,
    };
  }
}

function recordingLogger(lines: string[]): Logger {
  const log = (message: string): void => {
    lines.push(message);
  };
  return { debug: log, info: log, warn: log, error: log };
}

async function openOss(
  home: string,
  extra: { llm?: LlmClient; embedder?: Embedder; logger?: Logger } = {},
): Promise<Mem0Provider> {
  const provider = new Mem0Provider({ mode: 'oss', oss: OSS });
  await provider.initialize('s1', initContext(home, extra));
  return provider;
}

async function recall(provider: Mem0Provider, query: string, turn: number): Promise<string> {
  provider.onTurnStart(turn, query);
  await provider.idle();
  return provider.prefetch(query);
}

describe('§3.8 mem0 OSS in process (mem0ai/oss, offline)', () => {
  it('with no LLM and no key: the bundled Model2Vec embedder, turns and facts stored verbatim, recalled next session', async () => {
    const home = tempHome();
    const first = await openOss(home);
    expect(first.systemPromptBlock()).toMatch(/Mode: OSS \(self-hosted\)/);
    expect(await tool(first, 'mem0_add', { content: 'The user keeps bees on the roof.' })).toMatchObject({
      result: 'Fact stored.',
    });
    first.syncTurn('My sister Maya lives in Porto.', 'Got it.');
    await first.idle();
    await first.shutdown();

    const second = await openOss(home);
    const block = await recall(second, 'where does Maya live?', 1);
    expect(block).toContain('My sister Maya lives in Porto.');
    const found = await tool(second, 'mem0_search', { query: 'bees on the roof', top_k: 1 });
    expect((found.results as Array<{ memory: string }>)[0]!.memory).toBe('The user keeps bees on the roof.');
    expect((await second.listMemories()).length).toBeGreaterThanOrEqual(3);
    await second.shutdown();
  });

  it('stores live under HERMES_HOME at 0600 (folder 0700); nothing is written under ~/.mem0', async () => {
    const home = tempHome();
    const provider = await openOss(home);
    await tool(provider, 'mem0_add', { content: 'Prefers aisle seats.' });
    await provider.shutdown();
    const dir = path.join(home, 'mem0_oss');
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    const files = fs.readdirSync(dir).filter((f) => fs.statSync(path.join(dir, f)).isFile());
    expect(files).toEqual(expect.arrayContaining(['vector_store.db', 'history.db', 'embedder.json']));
    for (const file of files)
      expect([file, fs.statSync(path.join(dir, file)).mode & 0o777]).toEqual([file, 0o600]);
    expect(fs.existsSync(path.join(fakeUserHome, '.mem0'))).toBe(false);
    // status --probe on a fresh home creates nothing: OSS has no service to reach
    const fresh = tempHome();
    const probe = await new Mem0Provider(
      { mode: 'oss', oss: OSS },
      createProviderFactoryContext('mem0', { hermesHome: fresh, env: {} }),
    ).probe();
    expect(probe.status).toBe('skipped');
    expect(fs.readdirSync(fresh)).toEqual([]);
  });

  it("with the agent's LLM: turns go to mem0's extraction through the loopback bridge (JSON mode) and the extracted fact is recalled", async () => {
    const home = tempHome();
    const llm = new ScriptedLlm(['Sister Maya lives in Porto']);
    const provider = await openOss(home, { llm });
    provider.syncTurn('My sister Maya moved to Porto last year.', 'Nice!');
    await provider.idle();
    expect(llm.requests.length).toBeGreaterThan(0);
    expect(llm.requests[0]!.json).toBe(true);
    expect(JSON.stringify(llm.requests[0]!.messages)).toContain('Maya moved to Porto');
    const memories = (await provider.listMemories()).map((m) => m.memory);
    expect(memories).toEqual(['Sister Maya lives in Porto']);
    await provider.shutdown();
  });

  it('§3.8.25 the OSS qdrant path defaults to $HERMES_HOME/mem0_qdrant when neither a path nor a URL is set', async () => {
    const home = tempHome();
    expect(resolveOssVectorStore(home, { vector_store: { provider: 'qdrant' } })).toEqual({
      provider: 'qdrant',
      path: path.join(home, 'mem0_qdrant'),
    });
    expect(
      resolveOssVectorStore(home, { vector_store: { provider: 'qdrant', config: { path: '/q' } } }),
    ).toEqual({
      provider: 'qdrant',
      path: '/q',
    });
    expect(
      resolveOssVectorStore(home, { vector_store: { provider: 'qdrant', config: { url: 'http://q:6333' } } }),
    ).toEqual({ provider: 'qdrant', url: 'http://q:6333' });
    expect(resolveOssVectorStore(home, OSS)).toEqual({
      provider: 'memory',
      dir: path.join(home, 'mem0_oss'),
    });
    // mem0ai/oss has no local Qdrant files: a clear refusal naming the resolved path
    const provider = new Mem0Provider({ mode: 'oss', oss: { vector_store: { provider: 'qdrant' } } });
    await expect(provider.initialize('s1', initContext(home))).rejects.toThrow(/mem0_qdrant.*"memory"/);
  });

  it('§3.8.26 an OSS dimension change retires the stale collection (moved aside, not deleted) and starts a new one', async () => {
    const home = tempHome();
    const model2vec = createDefaultEmbedder();
    const first = await openOss(home, { embedder: model2vec });
    await tool(first, 'mem0_add', { content: 'The user keeps bees on the roof.' });
    await first.shutdown();

    const lines: string[] = [];
    const smaller = new HashEmbedder({ dimensions: 32 });
    expect(smaller.dimensions).not.toBe(model2vec.dimensions);
    const second = await openOss(home, { embedder: smaller, logger: recordingLogger(lines) });
    expect(lines.some((l) => /embedder changed from \d+ to 32 dimensions/.test(l))).toBe(true);
    expect(await second.listMemories()).toEqual([]);
    await tool(second, 'mem0_add', { content: 'Prefers aisle seats.' });
    const found = await tool(second, 'mem0_search', { query: 'aisle seats' });
    expect((found.results as Array<{ memory: string }>)[0]!.memory).toBe('Prefers aisle seats.');
    await second.shutdown();
    const dir = path.join(home, 'mem0_oss');
    const stale = fs.readdirSync(dir).filter((f) => /^vector_store\.db\.stale-\d+d-/.test(f));
    expect(stale).toHaveLength(1);
    expect(fs.readFileSync(path.join(dir, stale[0]!)).includes('bees on the roof')).toBe(true);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'embedder.json'), 'utf8')).dimensions).toBe(32);
  });

  it('other OSS embedders and LLMs are refused with a clear error (OSS uses the agent’s)', async () => {
    const home = tempHome();
    const provider = new Mem0Provider({
      mode: 'oss',
      oss: { ...OSS, embedder: { provider: 'openai', config: { model: 'text-embedding-3-small' } } },
    });
    await expect(provider.initialize('s1', initContext(home))).rejects.toThrow(
      /embedder "openai" is not supported/,
    );
  });
});
