import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type AgentContext, type InitContext, silentLogger } from '@hermes-memory/core';
import { afterEach } from 'vitest';
import { type ContinuityProvider, createContinuityProvider } from './provider';
import type { ContinuitySettings } from './settings';
import { ContinuityStore, type ContinuityStoreOptions } from './store';

const dirs: string[] = [];
const closers: Array<() => void> = [];

/** A temp dir removed after the test. */
export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-continuity-test-'));
  dirs.push(dir);
  return dir;
}

/** A settable clock: `clock.now()` for stores, `clock.advanceDays(n)` in tests. */
export function fakeClock(start = '2025-01-15T12:00:00.000Z') {
  let t = Date.parse(start);
  return {
    now: () => new Date(t),
    advanceDays(days: number) {
      t += days * 86_400_000;
    },
  };
}

/** A store in a fresh temp dir, closed after the test. */
export function tempStore(options: Partial<ContinuityStoreOptions> = {}): ContinuityStore {
  const store = new ContinuityStore({
    dbPath: path.join(tempDir(), 'continuity', 'continuity.db'),
    ...options,
  });
  closers.push(() => store.close());
  return store;
}

export function initContext(hermesHome: string, extra: Partial<InitContext> = {}): InitContext {
  return { hermesHome, platform: 'cli', agentContext: 'primary', logger: silentLogger, ...extra };
}

/** An initialized provider (lexical unless the settings say otherwise), shut down after the test. */
export function tempProvider(
  settings: ContinuitySettings = {},
  options: {
    home?: string;
    agentContext?: AgentContext;
    sessionId?: string;
    context?: Partial<InitContext>;
  } = {},
): ContinuityProvider {
  const provider = createContinuityProvider({ embeddings: false, ...settings });
  provider.initialize(
    options.sessionId ?? 's1',
    initContext(options.home ?? tempDir(), {
      agentContext: options.agentContext ?? 'primary',
      ...options.context,
    }),
  );
  closers.push(() => provider.shutdown());
  return provider;
}

export async function call(
  provider: ContinuityProvider,
  tool: string,
  args: unknown,
): Promise<Record<string, unknown>> {
  return JSON.parse(await provider.handleToolCall(tool, args)) as Record<string, unknown>;
}

afterEach(() => {
  // Stores and providers first: their files live in the dirs removed next.
  for (const close of closers.splice(0)) close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
