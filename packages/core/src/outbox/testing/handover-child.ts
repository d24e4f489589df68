/**
 * A child process for the handover kill -9 test: re-opens its outbox at `argv[2]` over and over
 * without awaiting the old close, as a provider initialized again does. It prints `ok <n>` once
 * entry n is on disk (appended and flushed, or written by the open that took it over while still
 * queued); for every third entry `ack <n>` before acknowledging it through the old outbox (after
 * the handover) and `acked <n>` once that is on disk; until it is killed.
 */
import { Outbox } from '../outbox';

const dir = process.argv[2]!;
let outbox = Outbox.open<{ n: number }>({ dir, name: 'child' });
let n = 0;
process.stdout.write(`ready ${process.pid}\n`);
for (;;) {
  await outbox.append([{ n }]);
  process.stdout.write(`ok ${n}\n`);
  n += 1;
  const [queued] = outbox.add([{ n }]);
  const old = outbox;
  void old.close();
  outbox = Outbox.open<{ n: number }>({ dir, name: 'child' });
  process.stdout.write(`ok ${n}\n`);
  if (n % 3 === 0) {
    process.stdout.write(`ack ${n}\n`);
    old.ack([queued!.id]);
    await outbox.flushed();
    process.stdout.write(`acked ${n}\n`);
  }
  n += 1;
}
