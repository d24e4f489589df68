/**
 * A child process for the kill -9 test: appends numbered writes to an outbox at `argv[2]` and
 * prints `ok <n>` once each is on disk, until it is killed. Nothing is delivered or acknowledged.
 */
import { Outbox } from '../outbox';

const dir = process.argv[2]!;
const outbox = Outbox.open<{ n: number; text: string }>({ dir, name: 'child' });
process.stdout.write(`ready ${process.pid}\n`);
for (let n = 0; ; n++) {
  await outbox.append([{ n, text: `turn ${n} `.repeat(20) }]);
  process.stdout.write(`ok ${n}\n`);
}
