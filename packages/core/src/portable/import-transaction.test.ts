import { describe, expect, it } from 'vitest';
import { CliError } from '../provider-cli/args';
import { importTransaction } from './index';

const busy = () => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });

/** A connection that records its SQL and refuses BEGIN IMMEDIATE `busyBegins` times. */
function connection(busyBegins = 0) {
  const sql: string[] = [];
  let refusals = busyBegins;
  return {
    sql,
    exec(text: string) {
      if (text === 'BEGIN IMMEDIATE' && refusals-- > 0) throw busy();
      sql.push(text);
    },
  };
}

describe('importTransaction', () => {
  it('waits out a busy write lock, then commits what fn wrote', () => {
    const db = connection(3);
    const value = importTransaction(db, 'state.db', () => 'rows', { sleep: () => {}, now: () => 0 });
    expect(value).toBe('rows');
    expect(db.sql).toEqual(['BEGIN IMMEDIATE', 'COMMIT']);
  });

  it('rolls back when fn fails, and passes its error on', () => {
    const db = connection();
    expect(() =>
      importTransaction(db, 'state.db', () => {
        throw new Error('bad row');
      }),
    ).toThrow('bad row');
    expect(db.sql).toEqual(['BEGIN IMMEDIATE', 'ROLLBACK']);
  });

  it('a lock held past the deadline is a CliError naming the file; fn never runs', () => {
    const db = connection(Number.POSITIVE_INFINITY);
    let t = 0;
    let ran = false;
    let thrown: unknown;
    try {
      importTransaction(db, '/home/x/state.db', () => (ran = true), {
        timeoutMs: 2000,
        now: () => t,
        sleep: (ms) => (t += ms + 500),
      });
    } catch (error) {
      thrown = error;
    }
    expect(CliError.isInstance(thrown)).toBe(true);
    expect((thrown as Error).message).toMatch(
      /\/home\/x\/state\.db stayed locked .* for 2 s; nothing was imported/,
    );
    expect(ran).toBe(false);
    expect(db.sql).toEqual([]);
  });
});
