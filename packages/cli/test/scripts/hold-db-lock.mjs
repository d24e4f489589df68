// Hold a database's write lock (BEGIN IMMEDIATE) for argv[3] ms after printing "held", as a long
// agent write would, then commit and exit.
import { createRequire } from 'node:module';

const Database = createRequire(import.meta.url)('better-sqlite3');
const [file, ms] = process.argv.slice(2);
const db = new Database(file, { timeout: 10_000 });
db.exec('BEGIN IMMEDIATE');
process.stdout.write('held\n');
// A synchronous wait, so nothing else runs while the lock is held.
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(ms));
db.exec('COMMIT');
db.close();
