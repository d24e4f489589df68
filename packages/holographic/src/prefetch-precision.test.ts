/**
 * What prefetch puts in front of the model (issue #19): in a live session, thirty unrelated facts
 * written seconds apart, then ordinary and off-topic questions — lexical and with the bundled
 * Model2Vec embeddings. Test data: `test/fixtures/live-session.json`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Embedder, type InitContext, silentLogger } from '@hermes-memory/core';
import { createDefaultEmbedder } from '@hermes-memory/embeddings';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type HolographicProvider, createHolographicProvider } from './provider';
import type { HolographicSettings } from './settings';
import { tempDir } from './test-helpers';

interface LiveSession {
  facts: string[];
  questions: Array<{ q: string; answer: string }>;
  paraphrases: Array<{ q: string; answer: string }>;
  offTopic: string[];
}
const session = JSON.parse(
  fs.readFileSync(path.join(__dirname, '..', 'test', 'fixtures', 'live-session.json'), 'utf8'),
) as LiveSession;

const live: HolographicProvider[] = [];
afterEach(() => {
  for (const p of live.splice(0)) p.shutdown();
});

let model2vec: Embedder;
beforeAll(() => {
  model2vec = createDefaultEmbedder();
});

/** A provider whose store holds the session's thirty facts, written one after the other. */
async function sessionProvider(
  embedder: Embedder | undefined,
  settings: HolographicSettings = {},
): Promise<HolographicProvider> {
  const p = createHolographicProvider({ embeddings: embedder !== undefined, ...settings });
  const context: InitContext = {
    hermesHome: tempDir(),
    platform: 'cli',
    agentContext: 'primary',
    logger: silentLogger,
    embedder,
  };
  p.initialize('live', context);
  live.push(p);
  for (const content of session.facts) {
    const out = JSON.parse(await p.handleToolCall('fact_store', { action: 'add', content })) as {
      status?: string;
    };
    expect(out.status).toBe('added');
  }
  return p;
}

/** The facts of a prefetch block, one per line after the header. */
function injected(block: string): string[] {
  return block
    .split('\n')
    .slice(1)
    .map((line) => line.replace(/^- \[[\d.]+\] \[id \d+\] \[relevance [\d.]+\] /, ''));
}

for (const variant of ['lexical', 'Model2Vec'] as const) {
  describe(`prefetch precision in a live session (${variant})`, () => {
    const embedder = () => (variant === 'lexical' ? undefined : model2vec);

    it('an off-topic question against a populated store injects nothing', async () => {
      const p = await sessionProvider(embedder());
      for (const q of session.offTopic) expect(await p.prefetch(q), q).toBe('');
      expect(p.recallStatus()).toBeNull();
    });

    it('a question with one relevant fact among thirty injects that fact and at most one other', async () => {
      const p = await sessionProvider(embedder());
      for (const { q, answer } of session.questions) {
        const facts = injected(await p.prefetch(q));
        expect(facts, q).toContain(answer);
        expect(facts.length, q).toBeLessThanOrEqual(2);
      }
    });

    it('a paraphrase sharing at most one word with its fact injects nothing unrelated; search finds it', async () => {
      const p = await sessionProvider(embedder());
      for (const { q, answer } of session.paraphrases) {
        for (const fact of injected(await p.prefetch(q))) expect(fact, q).toBe(answer);
        const search = JSON.parse(await p.handleToolCall('fact_store', { action: 'search', query: q })) as {
          results: Array<{ content: string }>;
        };
        expect(search.results.map((r) => r.content)).toContain(answer);
      }
    });

    it('each line shows trust, id and relevance; the search tool lists weaker candidates with theirs', async () => {
      const p = await sessionProvider(embedder());
      const block = await p.prefetch('Who is my manager?');
      expect(block.split('\n')[1]).toMatch(
        /^- \[0\.5\] \[id \d+\] \[relevance (0\.\d\d|1\.00)\] Dana's manager/,
      );
      const search = JSON.parse(
        await p.handleToolCall('fact_store', { action: 'search', query: 'Who is my manager?' }),
      ) as { results: Array<{ content: string; relevance: number }> };
      expect(search.results[0]!.content).toBe("Dana's manager is Priscilla Nakamura.");
      for (const r of search.results) expect(r.relevance).toBeGreaterThanOrEqual(0);
      // Nothing in the store is about the capital of Australia: the search says so too.
      const off = JSON.parse(
        await p.handleToolCall('fact_store', { action: 'search', query: "What's the capital of Australia?" }),
      ) as { results: Array<{ relevance: number }> };
      for (const r of off.results) expect(r.relevance).toBeLessThan(0.45);
    });
  });
}

describe('prefetch limits and the bar', () => {
  it('never injects more than prefetchLimit records, even when more clear the bar', async () => {
    const p = createHolographicProvider({ embeddings: false, prefetchLimit: 3 });
    p.initialize('s', {
      hermesHome: tempDir(),
      platform: 'cli',
      agentContext: 'primary',
      logger: silentLogger,
    });
    live.push(p);
    for (let i = 0; i < 8; i++)
      await p.handleToolCall('fact_store', {
        action: 'add',
        content: `Staging server ${i} is called orca${i}`,
      });
    const lines = (await p.prefetch('what is the staging server called')).split('\n').slice(1);
    expect(lines).toHaveLength(3);
    expect(p.recallStatus()).toEqual({ providerLabel: 'holographic', count: 3 });
  });

  it('a higher bar injects fewer facts; 0 keeps the best-ranked candidates', async () => {
    const counts: number[] = [];
    for (const bar of [0, 0.45, 1]) {
      const p = await sessionProvider(undefined, { prefetchMinRelevance: bar });
      counts.push(injected(await p.prefetch('When is my dentist appointment?')).filter(Boolean).length);
    }
    expect(counts[0]).toBeGreaterThanOrEqual(counts[1]!);
    expect(counts[1]).toBeGreaterThanOrEqual(1);
    expect(counts[2]).toBeLessThanOrEqual(counts[1]!);
  });

  it('a store of one fact: a question about it injects it (rarity is not judged on a handful of facts)', async () => {
    const p = createHolographicProvider({ embeddings: false });
    p.initialize('s', {
      hermesHome: tempDir(),
      platform: 'cli',
      agentContext: 'primary',
      logger: silentLogger,
    });
    live.push(p);
    await p.handleToolCall('fact_store', { action: 'add', content: 'Jane Doe prefers Neovim' });
    expect(injected(await p.prefetch('which editor does Jane prefer?'))).toEqual(['Jane Doe prefers Neovim']);
    expect(await p.prefetch("what's the capital of Australia?")).toBe('');
  });

  it('only injected facts count as retrieved', async () => {
    const p = await sessionProvider(undefined);
    await p.prefetch('Who is my manager?');
    await p.prefetch("What's the capital of Australia?");
    const store = p.factStore!;
    store.flushRetrievalCounts();
    const counted = store.list({ limit: 100 }).filter((f) => f.retrieval_count > 0);
    expect(counted.map((f) => f.content)).toEqual(["Dana's manager is Priscilla Nakamura."]);
  });

  it('rejects a bar outside 0–1 and a limit below 1', () => {
    const home = tempDir();
    const base = {
      hermesHome: home,
      platform: 'cli',
      agentContext: 'primary',
      logger: silentLogger,
    } as const;
    expect(() => createHolographicProvider({ prefetchMinRelevance: 1.5 }).initialize('s', base)).toThrow(
      /prefetch_min_relevance/,
    );
    expect(() => createHolographicProvider({ prefetchLimit: 0 }).initialize('s', base)).toThrow(
      /prefetch_limit/,
    );
  });
});
