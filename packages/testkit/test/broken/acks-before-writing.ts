import { GoodProvider } from '../fixtures/good-provider';
import { durableHarness } from '../fixtures/durable-provider';
import type { BrokenCase } from './types';

/** Claims durability but keeps acknowledged turns in memory until shutdown: kill -9 loses them. */
export class BufferingProvider extends GoodProvider {
  override readonly name: string = 'durable';
  private buffer: string[] = [];
  override syncTurn(user: string, assistant: string): void {
    if (this.writable) this.buffer.push(`${user} ${assistant}`);
  }
  override async shutdown(): Promise<void> {
    if (!this.closed) {
      await this.append(
        this.buffer.splice(0).map((text, i) => ({ op: 'add' as const, id: `b${Date.now()}-${i}`, text })),
      );
    }
    await super.shutdown();
  }
}

export const acksBeforeWriting: BrokenCase = {
  check: 'durability.kill-9',
  message: /of \d+ acknowledged turns were lost after kill -9/,
  harness: durableHarness('buffering', { create: () => new BufferingProvider() }),
};
