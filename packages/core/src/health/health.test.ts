import { describe, expect, it } from 'vitest';
import { APICallError } from '../errors/memory-error';
import { ManualClock } from '../resilience';
import { HealthMonitor, isProviderHealth, type ProviderHealth, worseHealth } from './index';

describe('HealthMonitor', () => {
  it('goes unknown → ok → degraded → down, with since moving only on a change', async () => {
    const clock = new ManualClock(1_000);
    const changes: string[] = [];
    const health = new HealthMonitor({
      clock,
      downAfter: 2,
      onChange: (h, p) => changes.push(`${p.status}→${h.status}`),
    });
    expect(health.snapshot()).toEqual({ status: 'unknown', since: 1_000, consecutiveFailures: 0 });
    await clock.advance(10);
    health.recordSuccess();
    expect(health.snapshot()).toMatchObject({ status: 'ok', since: 1_010, lastSuccessAt: 1_010 });
    await clock.advance(10);
    health.recordFailure(
      new APICallError({ message: 'HTTP 503 for key sk-abcdefghijklmnopqrstu', url: 'x', statusCode: 503 }),
    );
    expect(health.snapshot()).toMatchObject({ status: 'degraded', since: 1_020, consecutiveFailures: 1 });
    expect(health.snapshot().reason).toBe('HTTP 503 for key [redacted]');
    await clock.advance(10);
    health.recordFailure('timed out\nstack line');
    expect(health.snapshot()).toMatchObject({
      status: 'down',
      since: 1_030,
      reason: 'timed out',
      consecutiveFailures: 2,
    });
    await clock.advance(10);
    health.recordFailure('again');
    expect(health.snapshot().since).toBe(1_030);
    health.recordSuccess();
    expect(health.snapshot().reason).toBeUndefined();
    health.markDown('breaker open');
    health.reset();
    expect(changes).toEqual([
      'unknown→ok',
      'ok→degraded',
      'degraded→down',
      'down→ok',
      'ok→down',
      'down→unknown',
    ]);
  });

  it('worseHealth picks the more severe report; isProviderHealth validates plugin output', () => {
    const ok: ProviderHealth = { status: 'ok', since: 1, consecutiveFailures: 0 };
    const down: ProviderHealth = { status: 'down', since: 2, consecutiveFailures: 3, reason: 'x' };
    expect(worseHealth(ok, down)).toBe(down);
    expect(worseHealth(down, ok)).toBe(down);
    expect(worseHealth(ok, null)).toBe(ok);
    expect(isProviderHealth(down)).toBe(true);
    expect(isProviderHealth({ status: 'fine', since: 1 })).toBe(false);
    expect(isProviderHealth('ok')).toBe(false);
  });
});
