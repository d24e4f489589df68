/** Test-only (not exported): temporary outbox folders and the outboxes opened on them. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Outbox, type OutboxOptions } from './outbox';

export interface Msg {
  n: number;
}

export const ns = (o: Outbox<Msg>) => o.entries().map((e) => e.data.n);

/** `home()` makes a folder, `open()` an outbox in it; `cleanup()` (in `afterEach`) closes and removes both. */
export function outboxFixture(prefix: string) {
  const dirs: string[] = [];
  const opened: Array<Outbox<unknown>> = [];
  return {
    home(): string {
      const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
      dirs.push(d);
      return d;
    },
    open(dir: string, extra: Partial<OutboxOptions> = {}): Outbox<Msg> {
      const o = Outbox.open<Msg>({ dir, name: 'Test', ...extra });
      opened.push(o as Outbox<unknown>);
      return o;
    },
    async cleanup(): Promise<void> {
      for (const o of opened.splice(0)) await o.close();
      for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
    },
  };
}
