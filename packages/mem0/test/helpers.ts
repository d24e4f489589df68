import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Clock, type InitContext, silentLogger } from '@hermes-memory/core';
import { afterAll } from 'vitest';
import type { Mem0ProviderSettings } from '../src';
import { Mem0Provider } from '../src';
import {
  type FakeMem0Platform,
  type FakeMem0Server,
  startFakeMem0Platform,
  startFakeMem0Server,
} from '../src/testing';

export const PLATFORM_KEY = 'm0-test-key-0123456789';
export const SERVER_KEY = 'selfhosted-key-0123456789';

// The SDK reads this once, at import; the provider also sets it when unset.
process.env.MEM0_TELEMETRY = 'false';

const homes: string[] = [];
const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers.splice(0)) await close();
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
});

export function tempHome(): string {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-mem0-'));
  homes.push(home);
  return home;
}

export async function platformFake(): Promise<FakeMem0Platform> {
  const fake = await startFakeMem0Platform({
    apiKey: PLATFORM_KEY,
    now: () => new Date('2026-01-01T00:00:00Z'),
  });
  closers.push(() => fake.close());
  return fake;
}

export async function serverFake(): Promise<FakeMem0Server> {
  const fake = await startFakeMem0Server({ apiKey: SERVER_KEY, now: () => new Date('2026-01-01T00:00:00Z') });
  closers.push(() => fake.close());
  return fake;
}

export function platformSettings(
  fake: { url: string },
  extra: Mem0ProviderSettings = {},
): Mem0ProviderSettings {
  return { apiKey: PLATFORM_KEY, platformURL: fake.url, ...extra };
}

export function serverSettings(
  fake: { url: string },
  extra: Mem0ProviderSettings = {},
): Mem0ProviderSettings {
  return { apiKey: SERVER_KEY, host: fake.url, ...extra };
}

export function initContext(home: string, extra: Partial<InitContext> = {}): InitContext {
  return {
    hermesHome: home,
    platform: 'cli',
    agentContext: 'primary',
    env: {},
    logger: silentLogger,
    ...extra,
  };
}

/** A provider initialized against a fake, shut down after the file. */
export async function openProvider(
  settings: Mem0ProviderSettings,
  extra: Partial<InitContext> = {},
  home = tempHome(),
): Promise<Mem0Provider> {
  const provider = new Mem0Provider(settings);
  await provider.initialize('s1', initContext(home, extra));
  closers.push(() => provider.shutdown({ timeoutMs: 100 }));
  return provider;
}

/** Wait, by event-loop turns (never by time), until `condition` holds. */
export async function until(condition: () => boolean, what = 'condition', turns = 5000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (condition()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The JSON a tool answered. */
export async function tool(
  provider: Mem0Provider,
  name: string,
  args: unknown,
): Promise<Record<string, unknown>> {
  return JSON.parse(await provider.handleToolCall(name, args)) as Record<string, unknown>;
}

export type { Clock };
