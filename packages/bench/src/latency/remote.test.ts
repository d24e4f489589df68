import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type InitContext, MemoryProvider, type ToolSchema } from '@hermes-memory/core';
import type { FakeFault } from '@hermes-memory/testkit/http';
import { describe, expect, it } from 'vitest';
import { COMPARISON_PROVIDERS, REMOTE_PROVIDERS } from './providers';
import { REMOTE_MODES, type RemoteProviderEntry, remoteTurnOverhead } from './remote';

/**
 * A provider whose first recall on each instance is its slow one (as supermemory's turn-1 join):
 * it records what the manager calls, in order, so the harness's turn order can be checked.
 */
class RecordingProvider extends MemoryProvider {
  readonly name = 'recording';
  readonly events: string[] = [];
  constructor(private readonly fault: () => FakeFault | null) {
    super();
  }
  isAvailable() {
    return true;
  }
  initialize(_sessionId: string, _context: InitContext) {}
  getToolSchemas(): ToolSchema[] {
    return [];
  }
  override onTurnStart(turn: number) {
    this.events.push(`turn ${turn}`);
  }
  override prefetch() {
    const first = !this.events.includes('prefetch');
    this.events.push('prefetch');
    if (this.fault()) throw new Error('backend down');
    return first ? 'first recall' : 'warm recall';
  }
  override syncTurn() {
    this.events.push('sync');
  }
}

function recordingEntry(): { entry: RemoteProviderEntry; instances: RecordingProvider[] } {
  const instances: RecordingProvider[] = [];
  let fault: FakeFault | null = null;
  const entry: RemoteProviderEntry = {
    name: 'recording',
    start: async () => ({
      create: () => {
        const p = new RecordingProvider(() => fault);
        instances.push(p);
        return p;
      },
      failAll: (f) => {
        fault = f;
      },
      clearFaults: () => {
        fault = null;
      },
      close: async () => {},
    }),
  };
  return { entry, instances };
}

describe('remote turn overhead harness', () => {
  it('times warm turns only after the manager ran its turn 1, on every mode', async () => {
    const { entry, instances } = recordingEntry();
    const rows = await remoteTurnOverhead(entry, { runs: 5, firstTurns: 2, faultTurns: 3 }, () => {});

    expect(rows.map((r) => [r.setup.replace('recording vs its fake, ', ''), r.step, r.summary.n])).toEqual(
      REMOTE_MODES.flatMap((mode) => [
        [mode, 'first turn: onTurnStart + prefetchAll', 2],
        [mode, 'prefetchAll, turns after the first', mode === 'healthy' ? 5 : 3],
        [mode, 'syncAll (returns at once)', mode === 'healthy' ? 5 : 3],
      ]),
    );
    // Per mode: 2 fresh managers for the first turn, then one warm manager.
    expect(instances).toHaveLength(9);
    for (const [i, mode] of REMOTE_MODES.entries()) {
      for (const p of instances.slice(i * 3, i * 3 + 2)) expect(p.events).toEqual(['turn 1', 'prefetch']);
      const warm = instances[i * 3 + 2]!;
      const turns = mode === 'healthy' ? 5 : 3;
      // Turn 1 (with the first, possibly waiting, recall) before turn 2: never a timed sample.
      expect(warm.events.filter((e) => e !== 'sync').slice(0, 3)).toEqual(['turn 1', 'prefetch', 'turn 2']);
      // Every turn reached sync (with a hung backend nothing settles: they run after the last turn).
      expect(warm.events.filter((e) => e === 'sync')).toHaveLength(turns + 1);
      expect(warm.events.filter((e) => e === 'prefetch')).toHaveLength(turns + 1);
      expect(warm.events.filter((e) => e.startsWith('turn '))).toEqual(
        Array.from({ length: turns + 1 }, (_, t) => `turn ${t + 1}`),
      );
    }
  });

  it('lists every provider file once, under its own name', () => {
    const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'providers');
    const files = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.ts') && !['index.ts', 'fake-backend.ts'].includes(f))
      .map((f) => f.replace(/\.ts$/, ''));
    const names = [...REMOTE_PROVIDERS, ...COMPARISON_PROVIDERS].map((e) => e.name);
    expect(new Set(names).size).toBe(names.length);
    // Each file's entries are named after it (`supermemory`, `supermemory-per-query`).
    for (const name of names) expect(files.some((f) => name === f || name.startsWith(`${f}-`))).toBe(true);
    for (const f of files) expect(REMOTE_PROVIDERS.map((e) => e.name)).toContain(f);
  });
});
