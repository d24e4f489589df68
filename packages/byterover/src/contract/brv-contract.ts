/**
 * The test cases that run against BOTH the fake brv (default suite) and the real byterover-cli
 * (`pnpm --filter @hermes-memory/byterover test:real`), so the fake cannot drift from the CLI it
 * imitates. Each case drives the provider (or its brv runner) and asserts only what the real CLI
 * does offline with a scripted LLM: documents are seeded by writing the context tree, as curate
 * would.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Env } from '@hermes-memory/core';
import { afterAll, expect, it } from 'vitest';
import { BrvCli } from '../brv/brv-cli';
import { ByteroverProvider } from '../byterover-provider';
import type { ByteroverProviderSettings } from '../byterover-settings';
import { writeContextDoc } from '../testing/context-tree';

export interface BrvTarget {
  label: 'fake' | 'real';
  brvPath: string;
  /** The provider's env, with an LLM provider connected. */
  env: Env;
  /** An env whose brv has no LLM provider connected (the fake: switched off meanwhile). */
  withoutLlm<T>(run: (env: Env) => Promise<T>): Promise<T>;
  /** Timeouts fit for the target (the real CLI starts a daemon and an agent). */
  settings: ByteroverProviderSettings;
}

const JWT_DOC = {
  path: 'auth/jwt.md',
  title: 'JWT tokens',
  body: 'JWT access tokens expire after 24 hours; refresh tokens last 30 days.',
};

export function brvContractCases(target: () => BrvTarget): void {
  const roots: string[] = [];
  afterAll(() => {
    for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
  });

  const open = async (env?: Env) => {
    const t = target();
    const hermesHome = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `hm-brv-contract-${t.label}-`)));
    roots.push(hermesHome);
    const providerEnv = env ?? t.env;
    const provider = new ByteroverProvider(
      { brvPath: t.brvPath, ...t.settings },
      { env: providerEnv, hermesHome },
    );
    await provider.initialize('contract-session', {
      hermesHome,
      platform: 'cli',
      agentContext: 'primary',
      env: providerEnv,
      logger: { debug() {}, info() {}, warn() {}, error() {} },
    });
    return provider;
  };
  const json = (text: string) => JSON.parse(text) as Record<string, unknown>;

  it('§2.7.5 brv_status: the CLI version and the project directory, as JSON', async () => {
    const provider = await open();
    const status = json(await provider.handleToolCall('brv_status', {}));
    expect(status.status).toMatchObject({ cliVersion: '3.14.0', currentDirectory: provider.workdir });
    expect(await provider.probe()).toMatchObject({
      status: 'ok',
      message: expect.stringContaining('brv 3.14.0'),
    });
    await provider.shutdown();
  });

  it('§2.7.3 brv_search finds a document of the context tree (BM25, no LLM), text after "--" even when it looks like a flag', async () => {
    const provider = await open();
    writeContextDoc(provider.workdir, JWT_DOC.path, JWT_DOC.title, JWT_DOC.body);
    const found = json(await provider.handleToolCall('brv_search', { query: 'jwt tokens expire', limit: 5 }));
    expect(found).toMatchObject({ success: true });
    const first = (found.results as Array<Record<string, unknown>>)[0]!;
    expect(first).toMatchObject({ path: JWT_DOC.path, title: JWT_DOC.title });
    expect(String(first.excerpt)).toContain('24 hours');
    expect(typeof first.score).toBe('number');
    const flagLike = json(await provider.handleToolCall('brv_search', { query: '--limit 99 jwt' }));
    expect(flagLike).toMatchObject({ success: true });
    await provider.shutdown();
  });

  it('§2.7.3, 8 recall: brv query answers from the tree; prefetch returns "## ByteRover Context" with it', async () => {
    const provider = await open();
    writeContextDoc(provider.workdir, JWT_DOC.path, JWT_DOC.title, JWT_DOC.body);
    const question = 'How long do JWT access tokens last before they expire?';
    provider.onTurnStart(1, question);
    await provider.idle(); // the real CLI may need longer than turn 1's 3 s wait
    const recalled = await provider.prefetch(question);
    expect(recalled).toMatch(/^## ByteRover Context\n/);
    expect(recalled).toContain('24 hours');
    expect(provider.recallStatus()).toEqual({ providerLabel: 'ByteRover', count: 1 });
    // The same question again: brv answers from its cache (tier 0, no matched documents listed),
    // and it is still recalled.
    const answer = json(await provider.handleToolCall('brv_query', { query: question }));
    expect(String(answer.result)).toContain('24 hours');
    expect(answer.sources).toBeUndefined();
    provider.onTurnStart(2, question);
    await provider.idle(); // after turn 1 prefetch never waits: let the recall land first
    expect(await provider.prefetch(question)).toContain('24 hours');
    const other = json(
      await provider.handleToolCall('brv_query', { query: 'When do JWT access tokens expire?' }),
    );
    expect(String(other.result)).toContain('24 hours');
    expect(other.sources).toEqual([JWT_DOC.path]);
    await provider.shutdown();
  });

  it('§2.7.8 nothing reaches the prompt when no document of the tree matches', async () => {
    const provider = await open();
    writeContextDoc(provider.workdir, JWT_DOC.path, JWT_DOC.title, JWT_DOC.body);
    const question = 'Which mountain range did the user hike through in August?';
    provider.onTurnStart(1, question);
    await provider.idle();
    expect(await provider.prefetch(question)).toBe('');
    expect(provider.recallStatus()).toBeNull();
    // Asked again (brv's cached answer lists no documents either way): still nothing.
    provider.onTurnStart(2, question);
    await provider.idle();
    expect(await provider.prefetch(question)).toBe('');
    await provider.shutdown();
  });

  it('§2.7.10 brv_curate: brv curates through its LLM and the tool answers "Memory curated successfully."', async () => {
    const provider = await open();
    expect(
      await provider.handleToolCall('brv_curate', { content: 'The user prefers green tea in the morning.' }),
    ).toBe('{"result":"Memory curated successfully."}');
    expect(fs.existsSync(path.join(provider.workdir, '.brv', 'context-tree'))).toBe(true);
    await provider.shutdown();
  });

  it('§2.7.7 "success": false with exit 0 is a failure: curate and query without an LLM provider answer its error', async () => {
    await target().withoutLlm(async (env) => {
      const provider = await open(env);
      const curated = json(
        await provider.handleToolCall('brv_curate', { content: 'The user prefers green tea.' }),
      );
      expect(curated).toEqual({ success: false, error: expect.stringContaining('No provider connected') });
      expect(
        json(await provider.handleToolCall('brv_query', { query: 'What tea does the user like?' })).error,
      ).toMatch(/No provider connected/);
      expect(await provider.prefetch('What tea does the user like in the morning?')).toBe('');
      expect(provider.health()).toMatchObject({ status: expect.stringMatching(/degraded|down/) });
      await provider.shutdown();
    });
  });

  it("§2.7.7 a non-zero exit (an unknown flag) gives brv's stderr as the error", async () => {
    const t = target();
    const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hm-brv-contract-flag-')));
    roots.push(cwd);
    const cli = new BrvCli({ brvPath: t.brvPath, env: t.env, cwd });
    const outcome = await cli.run('query', 'anything at all', { timeoutMs: 120_000 }, ['--bogus']);
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'exit',
      error: expect.stringContaining('Nonexistent flag: --bogus'),
    });
  });
}
