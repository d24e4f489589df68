/** Test-only (not exported): temporary outbox folders and the outboxes opened on them. */
import { spawn } from 'node:child_process';
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

/**
 * Run `script` (beside this file, under `testing/`) on `dir`, kill it with SIGKILL once it printed
 * `okLines` lines starting "ok ", and return everything it printed on stdout.
 */
export async function killAfterOks(script: string, dir: string, okLines: number): Promise<string> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', new URL(`./testing/${script}`, import.meta.url).pathname, dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if ((out.match(/^ok /gm) ?? []).length >= okLines) resolve();
    });
    child.on('exit', () => reject(new Error(`child exited early: ${err.slice(-400)}`)));
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  return out;
}
