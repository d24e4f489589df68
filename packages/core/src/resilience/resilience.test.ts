import { describe, expect, it } from 'vitest';
import {
  APICallError,
  CircuitOpenError,
  InvalidArgumentError,
  MemoryError,
  TimeoutError,
} from '../errors/memory-error';
import { createRecordingLogger } from '../logging/logger';
import {
  backoffDelay,
  CircuitBreaker,
  createDeadline,
  createProviderBreaker,
  HeldLosses,
  isBackendFailure,
  isDeadlineExpiry,
  isClientError,
  isRetryableError,
  ManualClock,
  parseRetryAfter,
  pollUntil,
  retry,
  sleep,
  UndeliveredWrites,
  withDeadline,
} from './index';

const apiError = (statusCode?: number, headers?: Record<string, string>) =>
  new APICallError({
    message: `HTTP ${statusCode}`,
    url: 'http://x',
    ...(statusCode !== undefined ? { statusCode } : {}),
    ...(headers ? { responseHeaders: headers } : {}),
  });

/** Record when a promise settles, in clock time. */
function track<T>(promise: Promise<T>, clock: ManualClock) {
  const state: { settledAt?: number; value?: T; error?: unknown } = {};
  promise.then(
    (value) => {
      state.settledAt = clock.now();
      state.value = value;
    },
    (error: unknown) => {
      state.settledAt = clock.now();
      state.error = error;
    },
  );
  return state;
}

describe('ManualClock and sleep', () => {
  it('fires timers in time order only when advanced', async () => {
    const clock = new ManualClock(1000);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('b'), 200);
    clock.setTimeout(() => fired.push('a'), 100);
    const cleared = clock.setTimeout(() => fired.push('never'), 150);
    clock.clearTimeout(cleared);
    await clock.advance(99);
    expect(fired).toEqual([]);
    await clock.advance(101);
    expect(fired).toEqual(['a', 'b']);
    expect(clock.now()).toBe(1200);
    expect(clock.pendingTimers).toBe(0);
  });

  it('sleep resolves at its time and rejects on abort without leaving a timer', async () => {
    const clock = new ManualClock();
    const done = track(sleep(500, { clock }), clock);
    await clock.advance(499);
    expect(done.settledAt).toBeUndefined();
    await clock.advance(1);
    expect(done.settledAt).toBe(500);
    const controller = new AbortController();
    const aborted = sleep(1000, { clock, signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(aborted).rejects.toThrow('stop');
    expect(clock.pendingTimers).toBe(0);
  });
});

describe('deadlines', () => {
  it('withDeadline aborts the work signal with a TimeoutError at the budget', async () => {
    const clock = new ManualClock();
    let seen: AbortSignal | undefined;
    const result = track(
      withDeadline(
        (signal) => {
          seen = signal;
          return new Promise(() => {}); // ignores the signal: abandoned, not awaited
        },
        { timeoutMs: 3000, clock, label: 'prefetch honcho' },
      ),
      clock,
    );
    await clock.advance(2999);
    expect(result.settledAt).toBeUndefined();
    await clock.advance(1);
    expect(result.settledAt).toBe(3000);
    expect(TimeoutError.isInstance(result.error)).toBe(true);
    expect((result.error as Error).message).toBe('prefetch honcho timed out after 3000 ms');
    expect(seen?.aborted).toBe(true);
  });

  it('withDeadline passes results, errors and the parent abort reason through', async () => {
    const clock = new ManualClock();
    await expect(withDeadline(() => 7, { timeoutMs: 10, clock })).resolves.toBe(7);
    await expect(
      withDeadline(
        () => {
          throw new Error('sync boom');
        },
        { timeoutMs: 10, clock },
      ),
    ).rejects.toThrow('sync boom');
    const parent = new AbortController();
    const pending = withDeadline(() => new Promise(() => {}), {
      timeoutMs: Number.POSITIVE_INFINITY,
      signal: parent.signal,
      clock,
    });
    parent.abort(new Error('host shutdown'));
    await expect(pending).rejects.toThrow('host shutdown');
    expect(clock.pendingTimers).toBe(0);
  });

  it('createDeadline reports the time left and disposes its timer', async () => {
    const clock = new ManualClock();
    const deadline = createDeadline({ timeoutMs: 100, clock });
    await clock.advance(40);
    expect(deadline.remainingMs()).toBe(60);
    deadline.dispose();
    expect(clock.pendingTimers).toBe(0);
    expect(createDeadline({ timeoutMs: Number.POSITIVE_INFINITY, clock }).remainingMs()).toBe(
      Number.POSITIVE_INFINITY,
    );
  });
});

describe('retry', () => {
  it('retries retryable errors with exponential backoff and jitter on the clock', async () => {
    const clock = new ManualClock();
    const delays: number[] = [];
    let calls = 0;
    const result = track(
      retry(
        async () => {
          calls++;
          if (calls < 3) throw apiError(503);
          return 'ok';
        },
        { clock, baseDelayMs: 100, random: () => 0.5, onRetry: (info) => delays.push(info.delayMs) },
      ),
      clock,
    );
    await clock.runAll();
    expect(result.value).toBe('ok');
    expect(calls).toBe(3);
    // equal jitter at random 0.5: 3/4 of 100 · 2^n
    expect(delays).toEqual([75, 150]);
    expect(result.settledAt).toBe(225);
  });

  it('honours Retry-After, and gives up at once when it asks for longer than the cap', async () => {
    const clock = new ManualClock();
    let calls = 0;
    const honoured = track(
      retry(
        async () => {
          calls++;
          if (calls === 1) throw apiError(429, { 'retry-after': '2' });
          return calls;
        },
        { clock },
      ),
      clock,
    );
    await clock.runAll();
    expect(honoured.value).toBe(2);
    expect(honoured.settledAt).toBe(2000);
    const tooLong = apiError(429, { 'retry-after': '3600' });
    await expect(retry(() => Promise.reject(tooLong), { clock })).rejects.toBe(tooLong);
  });

  it('does not retry client errors, bugs, or after the retries are used up', async () => {
    const clock = new ManualClock();
    let calls = 0;
    const notFound = apiError(404);
    await expect(
      retry(
        () => {
          calls++;
          return Promise.reject(notFound);
        },
        { clock },
      ),
    ).rejects.toBe(notFound);
    expect(calls).toBe(1);
    await expect(retry(() => Promise.reject(new TypeError('bug')), { clock })).rejects.toThrow('bug');
    calls = 0;
    const failing = retry(
      () => {
        calls++;
        return Promise.reject(apiError(500));
      },
      { clock, maxRetries: 3 },
    );
    const outcome = track(failing, clock);
    await clock.runAll();
    expect(calls).toBe(4);
    expect(APICallError.isInstance(outcome.error)).toBe(true);
  });

  it('stops waiting when the signal aborts', async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    const running = retry(() => Promise.reject(apiError(503)), { clock, signal: controller.signal });
    await clock.advance(0);
    controller.abort(new Error('turn over'));
    await expect(running).rejects.toThrow('turn over');
  });

  it('backoffDelay caps and spreads the delay', () => {
    expect(backoffDelay(10, { baseDelayMs: 500, maxDelayMs: 8000, jitter: 'none' })).toBe(8000);
    expect(backoffDelay(1, { baseDelayMs: 500, jitter: 'full', random: () => 0 })).toBe(0);
    expect(backoffDelay(1, { baseDelayMs: 500, random: () => 0 })).toBe(500);
  });

  it('parses Retry-After as seconds, HTTP dates and retry-after-ms', () => {
    expect(parseRetryAfter('1.5')).toBe(1500);
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
    expect(
      parseRetryAfter({ 'retry-after': 'Wed, 21 Oct 2015 07:28:10 GMT' }, Date.UTC(2015, 9, 21, 7, 28, 0)),
    ).toBe(10_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });

  it('classifies errors: retryable vs client errors', () => {
    expect(isRetryableError(apiError())).toBe(true);
    expect(isRetryableError(apiError(502))).toBe(true);
    expect(isRetryableError(new TimeoutError('t', 1))).toBe(true);
    expect(isRetryableError(apiError(400))).toBe(false);
    expect(isRetryableError(new Error('x'))).toBe(false);
    expect(isClientError(apiError(404))).toBe(true);
    expect(isClientError(apiError(422))).toBe(true);
    expect(isClientError(apiError(429))).toBe(false);
    expect(isClientError(apiError(500))).toBe(false);
    expect(isClientError(new InvalidArgumentError('id', 'bad id'))).toBe(true);
  });
});

describe('CircuitBreaker', () => {
  it('opens after the threshold, refuses during the cooldown, and half-opens for one trial', async () => {
    const clock = new ManualClock();
    const states: string[] = [];
    const breaker = new CircuitBreaker({
      threshold: 3,
      cooldownMs: 120_000,
      clock,
      name: 'Mem0',
      onStateChange: (state) => states.push(state),
    });
    const fail = () => Promise.reject(apiError(500));
    for (let i = 0; i < 3; i++) await expect(breaker.run(fail)).rejects.toThrow('HTTP 500');
    expect(breaker.state).toBe('open');
    let calls = 0;
    const refused = await breaker
      .run(async () => {
        calls++;
      })
      .catch((e: unknown) => e);
    expect(CircuitOpenError.isInstance(refused)).toBe(true);
    expect((refused as Error).message).toMatch(/Mem0 temporarily unavailable after 3 consecutive failures/);
    expect(calls).toBe(0);
    await clock.advance(120_000);
    expect(breaker.state).toBe('half-open');
    // One trial at a time.
    expect(breaker.tryAcquire()).toBe(true);
    expect(breaker.tryAcquire()).toBe(false);
    breaker.recordFailure(apiError(503));
    expect(breaker.state).toBe('open');
    await clock.advance(120_000);
    await expect(breaker.run(async () => 'back')).resolves.toBe('back');
    expect(breaker.state).toBe('closed');
    expect(states).toEqual(['open', 'half-open', 'open', 'half-open', 'closed']);
  });

  it('does not count client errors; any success resets the count', async () => {
    const clock = new ManualClock();
    const breaker = new CircuitBreaker({ threshold: 2, clock });
    for (let i = 0; i < 5; i++)
      await expect(breaker.run(() => Promise.reject(apiError(404)))).rejects.toThrow();
    expect(breaker.state).toBe('closed');
    expect(breaker.failures).toBe(0);
    await expect(breaker.run(() => Promise.reject(apiError(500)))).rejects.toThrow();
    await breaker.run(async () => 1);
    await expect(breaker.run(() => Promise.reject(apiError(500)))).rejects.toThrow();
    expect(breaker.state).toBe('closed');
    const custom = new CircuitBreaker({ threshold: 1, clock, isFailure: () => true });
    await expect(custom.run(() => Promise.reject(apiError(404)))).rejects.toThrow();
    expect(custom.state).toBe('open');
    custom.reset();
    expect(custom.state).toBe('closed');
  });
});

describe('CircuitBreaker.run with a signal', () => {
  it('a call its caller aborted frees the half-open trial and counts nothing; a refusal can name the backend', async () => {
    const clock = new ManualClock();
    const breaker = new CircuitBreaker({ threshold: 2, cooldownMs: 1000, clock });
    const refusal = () => new CircuitOpenError('Example is unavailable.', breaker.retryAt);
    const aborted = () => {
      const stop = new AbortController();
      return {
        signal: stop.signal,
        call: () => {
          stop.abort(new Error('turn over'));
          return Promise.reject(new Error('aborted'));
        },
      };
    };
    for (let i = 0; i < 5; i++) {
      const { signal, call } = aborted();
      await expect(breaker.run(call, { signal })).rejects.toThrow('aborted');
    }
    expect(breaker.failures).toBe(0);
    expect(breaker.state).toBe('closed');
    for (let i = 0; i < 2; i++)
      await expect(breaker.run(() => Promise.reject(apiError(500)))).rejects.toThrow();
    await expect(breaker.run(async () => 1, { refusal })).rejects.toThrow('Example is unavailable.');
    await clock.advance(1000);
    // The trial is aborted: no verdict, so the breaker stays half-open and the next call is the trial.
    const { signal, call } = aborted();
    await expect(breaker.run(call, { signal })).rejects.toThrow('aborted');
    expect(breaker.state).toBe('half-open');
    expect(breaker.failures).toBe(2);
    expect(breaker.tryAcquire()).toBe(true);
    breaker.release();
    // An already aborted signal is not admitted at all.
    const stopped = AbortSignal.abort(new Error('gone'));
    await expect(breaker.run(async () => 1, { signal: stopped })).rejects.toThrow('gone');
    await expect(breaker.run(async () => 'back')).resolves.toBe('back');
    expect(breaker.state).toBe('closed');
  });
});

describe('CircuitBreaker.run: a caller that stopped vs a deadline that expired', () => {
  const cutShort = (reason: unknown) => {
    const stop = new AbortController();
    return {
      signal: stop.signal,
      call: () => {
        stop.abort(reason);
        return Promise.reject(reason);
      },
    };
  };

  it('a half-open trial cut short by its deadline re-opens the breaker; one its caller stopped is released', async () => {
    const clock = new ManualClock();
    const breaker = new CircuitBreaker({
      threshold: 2,
      cooldownMs: 1000,
      clock,
      isFailure: isBackendFailure,
    });
    for (let i = 0; i < 2; i++)
      await expect(breaker.run(() => Promise.reject(apiError(500)))).rejects.toThrow();
    await clock.advance(1000);
    const stopped = cutShort(new Error('the user pressed stop'));
    await expect(breaker.run(stopped.call, { signal: stopped.signal })).rejects.toThrow('stop');
    expect(breaker.state).toBe('half-open');
    expect(breaker.failures).toBe(2);
    // The manager's budget (core's TimeoutError): the backend did not answer in time.
    const expired = cutShort(new TimeoutError("prefetch 'example' timed out after 300 ms", 300));
    await expect(breaker.run(expired.call, { signal: expired.signal })).rejects.toThrow('timed out');
    expect(breaker.state).toBe('open');
    expect(breaker.failures).toBe(3);
    expect(breaker.retryAt).toBe(clock.now() + 1000);
    // AbortSignal.timeout()'s reason is a deadline too.
    await clock.advance(1000);
    const timedOut = cutShort(new DOMException('The operation timed out.', 'TimeoutError'));
    await expect(breaker.run(timedOut.call, { signal: timedOut.signal })).rejects.toThrow('timed out');
    expect(breaker.state).toBe('open');
    expect(breaker.failures).toBe(4);
  });

  it('while closed, deadlines count toward the threshold and stopped callers do not', async () => {
    const clock = new ManualClock();
    const breaker = new CircuitBreaker({ threshold: 3, clock });
    for (let i = 0; i < 5; i++) {
      const { signal, call } = cutShort(new DOMException('The operation was aborted.', 'AbortError'));
      await expect(breaker.run(call, { signal })).rejects.toThrow();
    }
    expect(breaker.failures).toBe(0);
    for (let i = 0; i < 3; i++) {
      const { signal, call } = cutShort(new TimeoutError('budget spent', 50));
      await expect(breaker.run(call, { signal })).rejects.toThrow();
    }
    expect(breaker.state).toBe('open');
    expect(isDeadlineExpiry(new TimeoutError('x', 1))).toBe(true);
    expect(isDeadlineExpiry(new DOMException('x', 'TimeoutError'))).toBe(true);
    expect(isDeadlineExpiry(new DOMException('x', 'AbortError'))).toBe(false);
    expect(isDeadlineExpiry(new Error('Memory manager shut down.'))).toBe(false);
    expect(isDeadlineExpiry(undefined)).toBe(false);
  });
});

describe('createProviderBreaker', () => {
  it('five backend failures open it for 120 s, client errors do not count, and onClose runs after the trial that closed it reported', async () => {
    const clock = new ManualClock();
    const logger = createRecordingLogger();
    const messages = () => logger.records.map((r) => r.message);
    const closed: string[] = [];
    const breaker = createProviderBreaker({
      name: 'Example',
      threshold: undefined,
      clock,
      logger,
      onClose: () => closed.push(breaker.state),
    });
    for (let i = 0; i < 9; i++)
      await expect(breaker.run(() => Promise.reject(apiError(404)))).rejects.toThrow();
    for (let i = 0; i < 5; i++)
      await expect(breaker.run(() => Promise.reject(apiError(503)))).rejects.toThrow();
    expect(breaker.state).toBe('open');
    expect(breaker.unavailableMessage()).toBe(
      'Example is unavailable after 5 consecutive failed requests; retry after 120 s.',
    );
    expect(messages()).toContain('Example: 5 consecutive requests failed; pausing Example calls for 120 s.');
    await clock.advance(120_000);
    const trial = breaker.run(async () => {
      // Not yet: onClose waits until the trial has reported.
      expect(closed).toEqual([]);
      return 'back';
    });
    await expect(trial).resolves.toBe('back');
    expect(closed).toEqual(['closed']);
    const custom = createProviderBreaker({ name: 'Other', threshold: 2, cooldownMs: 1000, clock });
    for (let i = 0; i < 2; i++)
      await expect(custom.run(() => Promise.reject(apiError(500)))).rejects.toThrow();
    expect([custom.state, custom.retryAt - clock.now()]).toEqual(['open', 1000]);
  });
});

describe('HeldLosses', () => {
  it('counts what the cap dropped, warns once per outage, says what an outage cost when a send goes through', () => {
    const logger = createRecordingLogger();
    const messages = () => logger.records.map((r) => r.message);
    const losses = new HeldLosses({
      name: 'Example',
      unit: 'message',
      max: 4,
      maxChars: 60,
      logger: () => logger,
    });
    expect(losses.note()).toBe('');
    losses.delivered();
    losses.dropped(0);
    expect(messages()).toEqual([]);
    losses.dropped(2);
    losses.dropped(3);
    expect(losses.total).toBe(5);
    expect(losses.note()).toBe(' 5 held message(s) dropped (the oldest, over the cap).');
    const warnings = () => messages().filter((m) => m.includes('dropping the oldest'));
    expect(warnings()).toEqual([
      'Example: unavailable for long enough that held turns exceed 4 messages or 60 characters; dropping the oldest (2 message(s) so far; the total is in health()).',
    ]);
    losses.delivered();
    losses.delivered();
    expect(messages().filter((m) => m.includes('reachable again'))).toEqual([
      'Example: reachable again; 5 held message(s) were dropped during the outage.',
    ]);
    // The next outage warns again; the total keeps counting.
    losses.dropped(1);
    expect(warnings()).toHaveLength(2);
    expect(losses.total).toBe(6);
  });
});

describe('UndeliveredWrites', () => {
  it('counts missed writes since start and since the last delivery, keeps the first miss time and the last reason, stops at seal', () => {
    let now = 1000;
    const writes = new UndeliveredWrites({ now: () => now, missed: 'not delivered to Example' });
    expect(writes.note()).toBe('');
    writes.lost(0, 'nothing');
    expect([writes.total, writes.sinceDelivered, writes.lastReason]).toEqual([0, 0, '']);
    writes.lost(2, 'turn: HTTP 503');
    now = 2000;
    writes.lost(1, 'memory write refused: circuit breaker open');
    expect([writes.total, writes.sinceDelivered, writes.since, writes.lastReason]).toEqual([
      3,
      3,
      1000,
      'memory write refused: circuit breaker open',
    ]);
    writes.delivered();
    expect([writes.total, writes.sinceDelivered]).toEqual([3, 0]);
    now = 5000;
    writes.lost(1, 'turn: timed out');
    expect(writes.since).toBe(5000);
    expect(writes.note()).toBe(' 4 write(s) not delivered to Example since start.');
    expect(writes.seal(2)).toBe(6);
    expect(writes.lastReason).toBe('abandoned at shutdown');
    // Sealed: what fails after the total was told is already in it.
    writes.lost(5, 'late');
    expect([writes.total, writes.lastReason]).toEqual([6, 'abandoned at shutdown']);
    writes.recovered(2);
    expect(writes.total).toBe(6);
  });

  it('a counted write delivered later (from the journal) leaves the total; never below zero', () => {
    const writes = new UndeliveredWrites({ now: () => 0, missed: 'not delivered to Example' });
    writes.lost(3, 'turn skipped: the previous write was still running');
    writes.recovered(2);
    expect([writes.total, writes.sinceDelivered]).toEqual([1, 1]);
    writes.recovered(0);
    writes.recovered(-1);
    expect(writes.total).toBe(1);
    writes.recovered(5);
    expect([writes.total, writes.sinceDelivered, writes.note()]).toEqual([0, 0, '']);
  });
});

describe('a provider breaker', () => {
  it('counts server errors, timeouts, resets and 408/409/429 however retryable; not other client errors', () => {
    const conflict = new APICallError({
      message: 'HTTP 409',
      url: 'http://x',
      statusCode: 409,
      isRetryable: false,
    });
    expect(isBackendFailure(conflict)).toBe(true);
    expect(isBackendFailure(apiError(429))).toBe(true);
    expect(isBackendFailure(apiError(500))).toBe(true);
    expect(isBackendFailure(apiError())).toBe(true);
    expect(isBackendFailure(new TimeoutError('slow', 5))).toBe(true);
    expect(isBackendFailure(new Error('socket hang up'))).toBe(true);
    expect(isBackendFailure(apiError(401))).toBe(false);
    expect(isBackendFailure(apiError(404))).toBe(false);
    expect(isBackendFailure(new InvalidArgumentError('id', 'bad id'))).toBe(false);
  });

  it('says when it opens and closes, and what a refused call tells the user', async () => {
    const clock = new ManualClock();
    const lines: string[] = [];
    const logger = {
      debug: () => {},
      info: (m: string) => lines.push(`info ${m}`),
      warn: (m: string) => lines.push(`warn ${m}`),
      error: () => {},
    };
    const breaker = new CircuitBreaker({ threshold: 2, cooldownMs: 60_000, clock, name: 'Example', logger });
    breaker.recordFailure(apiError(500));
    breaker.recordFailure(apiError(500));
    await clock.advance(15_500);
    expect(breaker.unavailableMessage()).toBe(
      'Example is unavailable after 2 consecutive failed requests; retry after 45 s.',
    );
    await clock.advance(44_500);
    expect(breaker.tryAcquire()).toBe(true);
    breaker.recordSuccess();
    expect(lines).toEqual([
      'warn Example: 2 consecutive requests failed; pausing Example calls for 60 s.',
      'info Example: reachable again; calls resumed.',
    ]);
  });
});

describe('pollUntil', () => {
  it('polls on the interval until done, riding out transient errors', async () => {
    const clock = new ManualClock();
    const answers: Array<() => string | undefined> = [
      () => undefined,
      () => {
        throw apiError(503);
      },
      () => 'completed',
    ];
    const result = track(
      pollUntil((attempt) => answers[attempt]!(), { intervalMs: 500, timeoutMs: 10_000, clock }),
      clock,
    );
    await clock.runAll();
    expect(result.value).toEqual({ status: 'done', value: 'completed', attempts: 3 });
    expect(result.settledAt).toBe(1000);
  });

  it('is bounded: reports a timeout with the last value; a non-transient error is thrown', async () => {
    const clock = new ManualClock();
    const result = track(
      pollUntil(() => 'pending', { intervalMs: 500, timeoutMs: 1200, clock, isDone: (v) => v === 'done' }),
      clock,
    );
    await clock.runAll();
    expect(result.value).toEqual({ status: 'timeout', last: 'pending', attempts: 4 });
    expect(result.settledAt).toBe(1200);
    await expect(pollUntil(() => Promise.reject(apiError(401)), { timeoutMs: 1000, clock })).rejects.toThrow(
      'HTTP 401',
    );
  });
});

describe('error classes', () => {
  it('stay recognisable across subclasses and duplicate copies', () => {
    class HonchoAPICallError extends APICallError {
      constructor() {
        super({ message: 'honcho down', url: 'http://h', statusCode: 503 });
        this.name = 'HonchoAPICallError';
      }
    }
    const error = new HonchoAPICallError();
    expect(APICallError.isInstance(error)).toBe(true);
    expect(MemoryError.isInstance(error)).toBe(true);
    expect(isRetryableError(error)).toBe(true);
    // A copy of core loaded twice brands with the same global symbols.
    const foreign = Object.assign(new Error('from another copy'), {
      [Symbol.for('@hermes-memory/error')]: true,
      [Symbol.for('@hermes-memory/error.APICallError')]: true,
    });
    expect(APICallError.isInstance(foreign)).toBe(true);
    expect(TimeoutError.isInstance(error)).toBe(false);
    expect(APICallError.isInstance(new TimeoutError('t', 1))).toBe(false);
  });
});
