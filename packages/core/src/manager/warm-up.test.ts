import { describe, expect, it } from 'vitest';
import { MemoryProvider } from '../provider/memory-provider';
import { isScannerWarm } from '../scanner/warm';
import { MemoryManager } from './memory-manager';
import { textPathsWarmUp } from './warm-up';

// One file, one process state: the warm-up is per process, so the order of these tests matters.

class QuietProvider extends MemoryProvider {
  readonly name = 'quiet';
  isAvailable(): boolean {
    return true;
  }
  initialize(): void {}
  getToolSchemas() {
    return [];
  }
}

const turnOfTheLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

async function loops(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await turnOfTheLoop();
}

describe('text-path warm-up (the first synced turn is not cold)', () => {
  it('an inspection-only start compiles nothing', async () => {
    const manager = new MemoryManager();
    manager.addProvider(new QuietProvider());
    await manager.initializeAllForInspection('s1', { hermesHome: '/nonexistent-home', env: {} });
    await loops(100);
    expect(textPathsWarmUp().done).toBe(0);
    expect(isScannerWarm()).toBe(false);
    await manager.shutdownAll();
  });

  it('initializeAll warms the scanner and redaction off the caller: a step per macrotask', async () => {
    const manager = new MemoryManager();
    manager.addProvider(new QuietProvider());
    await manager.initializeAll('s1', { hermesHome: '/nonexistent-home', env: {} });
    // Nothing ran on the caller's stack…
    expect(textPathsWarmUp().done).toBe(0);
    await turnOfTheLoop();
    // …and the steps are spread over the loop's turns, one at a time.
    const { done, total } = textPathsWarmUp();
    expect(done).toBe(1);
    expect(total).toBeGreaterThan(20);
    await loops(total);
    expect(textPathsWarmUp().done).toBe(total);
    expect(isScannerWarm()).toBe(true);
    await manager.shutdownAll();
  });
});
