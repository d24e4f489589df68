import { describe, expect, it } from 'vitest';
import { isSqliteBusy, retryWhileBusy } from './index';

const busy = () => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });

describe('retryWhileBusy', () => {
  it('recognises busy and locked errors by code or message, nothing else', () => {
    expect(isSqliteBusy(busy())).toBe(true);
    expect(isSqliteBusy(Object.assign(new Error('x'), { code: 'SQLITE_BUSY_SNAPSHOT' }))).toBe(true);
    expect(isSqliteBusy(Object.assign(new Error('x'), { code: 'SQLITE_LOCKED_SHAREDCACHE' }))).toBe(true);
    expect(isSqliteBusy(new Error('database table is locked'))).toBe(true);
    expect(isSqliteBusy(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' }))).toBe(false);
    expect(isSqliteBusy(null)).toBe(false);
  });

  it('retries a busy step until it succeeds, sleeping a jittered 20–150 ms between attempts', () => {
    const sleeps: number[] = [];
    let calls = 0;
    const value = retryWhileBusy(
      () => {
        if (++calls < 4) throw busy();
        return 'done';
      },
      { sleep: (ms) => sleeps.push(ms), now: () => 0 },
    );
    expect(value).toBe('done');
    expect(sleeps).toHaveLength(3);
    for (const ms of sleeps) expect(ms >= 20 && ms <= 150).toBe(true);
  });

  it('gives up at the deadline or the attempt limit with the busy error; other errors pass at once', () => {
    let t = 0;
    let calls = 0;
    expect(() =>
      retryWhileBusy(
        () => {
          calls++;
          throw busy();
        },
        { timeoutMs: 1000, now: () => t, sleep: (ms) => (t += ms + 100) },
      ),
    ).toThrow('database is locked');
    expect(calls).toBeGreaterThan(1);
    calls = 0;
    expect(() =>
      retryWhileBusy(
        () => {
          calls++;
          throw busy();
        },
        { attempts: 3, sleep: () => {} },
      ),
    ).toThrow('database is locked');
    expect(calls).toBe(3);
    calls = 0;
    expect(() =>
      retryWhileBusy(
        () => {
          calls++;
          throw new Error('no such table: x');
        },
        { sleep: () => {} },
      ),
    ).toThrow('no such table');
    expect(calls).toBe(1);
  });
});
