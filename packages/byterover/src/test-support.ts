/** Helpers shared by this package's tests (not part of the published API). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Clock, Env, InitContext, Logger, ManualClock } from '@hermes-memory/core';
import { ByteroverProvider } from './byterover-provider';
import type { ByteroverProviderSettings } from './byterover-settings';

const made: string[] = [];

/** A temporary directory removed by `cleanupTemp()`. */
export function tempDir(prefix = 'hm-brv-'): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

export function cleanupTemp(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** A logger that keeps its lines. */
export function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (message: string) => {
    lines.push(`${level} ${message}`);
  };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

export interface Opened {
  provider: ByteroverProvider;
  hermesHome: string;
  logger: Logger & { lines: string[] };
}

/** A provider on a fresh home, initialised as the primary agent. */
export async function openProvider(
  settings: ByteroverProviderSettings,
  options: {
    env?: Env;
    hermesHome?: string;
    providerConfig?: Record<string, unknown>;
    clock?: Clock;
    init?: Partial<InitContext>;
  } = {},
): Promise<Opened> {
  const hermesHome = options.hermesHome ?? tempDir('hm-brv-home-');
  const env = options.env ?? { PATH: process.env.PATH, HOME: hermesHome };
  const provider = new ByteroverProvider(settings, {
    env,
    hermesHome,
    ...(options.providerConfig ? { providerConfig: options.providerConfig } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const logger = recordingLogger();
  await provider.initialize('session-1', {
    hermesHome,
    platform: 'cli',
    agentContext: 'primary',
    env,
    logger,
    ...(options.providerConfig ? { providerConfig: options.providerConfig } : {}),
    ...options.init,
  });
  return { provider, hermesHome, logger };
}

/** Wait (real time, polling) until `check` holds; for work a child process does. */
export async function waitFor(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Advance a ManualClock in steps until `work` settles: the child has to start (real time) before
 * its timeout timer exists, so time moves only while the work is still pending.
 */
export async function advanceUntilSettled<T>(
  clock: ManualClock,
  work: Promise<T>,
  stepMs = 1000,
): Promise<T> {
  let done = false;
  void work.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  for (let i = 0; i < 100_000 && !done; i++) {
    await clock.advance(stepMs);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return work;
}
