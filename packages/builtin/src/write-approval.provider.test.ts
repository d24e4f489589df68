import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  type MemoryTarget,
  MemoryManager,
  MemoryProvider,
  type MemoryWriteAction,
  type MemoryWriteMetadata,
  type ToolSchema,
  silentLogger,
} from '@hermes-memory/core';
import { describe, expect, it } from 'vitest';
import { tempHome } from '../test/helpers/temp';
import { createBuiltinProvider } from './index';

/** A real (minimal) external provider that records what the manager mirrors to it. */
class RecordingProvider extends MemoryProvider {
  readonly name = 'recorder';
  readonly writes: Array<[MemoryWriteAction, MemoryTarget, string, MemoryWriteMetadata]> = [];
  isAvailable(): boolean {
    return true;
  }
  initialize(): void {}
  getToolSchemas(): ToolSchema[] {
    return [];
  }
  override onMemoryWrite(
    action: MemoryWriteAction,
    target: MemoryTarget,
    content: string,
    metadata: MemoryWriteMetadata,
  ): void {
    this.writes.push([action, target, content, metadata]);
  }
}

const parse = (s: string) => JSON.parse(s) as Record<string, unknown>;

async function setup(home: string, writeApproval?: boolean | 'stage' | 'block') {
  const builtin = createBuiltinProvider(writeApproval === undefined ? {} : { writeApproval });
  const external = new RecordingProvider();
  const manager = new MemoryManager({ logger: silentLogger });
  manager.addProvider(builtin);
  manager.addProvider(external);
  await manager.initializeAll('s1', { hermesHome: home, platform: 'cli' });
  return { builtin, external, manager };
}

describe('write approval through the provider and core MemoryManager', () => {
  it('staged results are never mirrored; applying one mirrors it once with the original origin', async () => {
    const home = tempHome();
    const { builtin, external, manager } = await setup(home, 'stage');
    expect(builtin.writeApproval).toBe('stage');
    const args = { action: 'add', target: 'user', content: 'Prefers tabs' };
    const result = await manager.handleToolCall('memory', args);
    const r = parse(result);
    expect(r).toMatchObject({ success: true, staged: true });
    // The host-side mirror path ignores staged results too.
    expect(manager.notifyMemoryToolWrite(result, args, { sessionId: 's1' })).toBe(0);
    await manager.flushPending(2000);
    expect(external.writes).toEqual([]);

    expect(builtin.pendingWrites.list().map((p) => p.id)).toEqual([r.pending_id]);
    const applied = await builtin.pendingWrites.apply(String(r.pending_id));
    expect(applied.success).toBe(true);
    await manager.flushPending(2000);
    expect(external.writes).toHaveLength(1);
    expect(external.writes[0]!.slice(0, 3)).toEqual(['add', 'user', 'Prefers tabs']);
    expect(external.writes[0]![3]).toMatchObject({ writeOrigin: 'assistant_tool', sessionId: 's1' });
    await manager.shutdownAll();
  });

  it('reads write_approval from config.yaml (top-level or memory.*); settings win', async () => {
    const home = tempHome();
    fs.writeFileSync(path.join(home, 'config.yaml'), 'write_approval: true\n');
    const a = await setup(home);
    expect(a.builtin.writeApproval).toBe('stage');
    await a.manager.shutdownAll();

    fs.writeFileSync(path.join(home, 'config.yaml'), 'memory:\n  write_approval: block\n');
    const b = await setup(home);
    expect(b.builtin.writeApproval).toBe('block');
    const r = parse(
      await b.manager.handleToolCall('memory', { action: 'add', target: 'memory', content: 'x' }),
    );
    expect(r.success).toBe(false);
    expect(String(r.error)).toMatch(/write_approval: block/);
    await b.manager.shutdownAll();

    const c = await setup(home, false);
    expect(c.builtin.writeApproval).toBe('off');
    expect(
      parse(await c.manager.handleToolCall('memory', { action: 'add', target: 'memory', content: 'x' }))
        .success,
    ).toBe(true);
    await c.manager.flushPending(2000);
    expect(c.external.writes.map((w) => w[0])).toEqual(['add']);
    await c.manager.shutdownAll();
  });

  it('staged writes survive a restart of the provider and can be rejected there', async () => {
    const home = tempHome();
    const first = await setup(home, 'stage');
    const r = parse(
      await first.manager.handleToolCall('memory', { action: 'add', target: 'memory', content: 'later' }),
    );
    await first.manager.shutdownAll();
    const second = await setup(home, 'stage');
    expect(second.builtin.pendingWrites.list().map((p) => p.id)).toEqual([r.pending_id]);
    expect(await second.builtin.pendingWrites.reject(String(r.pending_id))).toBe(true);
    expect(second.builtin.pendingWrites.list()).toEqual([]);
    await second.manager.flushPending(2000);
    expect(second.external.writes).toEqual([]);
    await second.manager.shutdownAll();
  });
});
