import { describe, expect, it } from 'vitest';
import { ManualClock } from '../resilience/clock';
import { listenForLoopbackCallback } from './loopback-callback';

const ok = () => ({ title: 'Done', text: 'You can close this tab.' });

describe('listenForLoopbackCallback', () => {
  it('listens on 127.0.0.1 before anything opens; a callback without our state neither completes nor ends the wait', async () => {
    const cb = await listenForLoopbackCallback({ state: 's3cret-state', label: 'Test connect', respond: ok });
    try {
      expect(cb.redirectUri).toBe(`http://127.0.0.1:${cb.port}/callback`);
      expect((await fetch(`http://127.0.0.1:${cb.port}/elsewhere`)).status).toBe(404);
      const forged = await fetch(`${cb.redirectUri}?key=stolen&state=wrong`);
      expect(forged.status).toBe(400);
      expect(await forged.text()).toContain('not the one Hermes is waiting for');
      let settled = false;
      cb.result.then(
        () => (settled = true),
        () => (settled = true),
      );
      await new Promise((resolve) => setImmediate(resolve));
      expect(settled).toBe(false);
      const good = await fetch(`${cb.redirectUri}?key=k&state=s3cret-state`);
      expect(good.status).toBe(200);
      expect(await good.text()).toContain('You can close this tab.');
      expect((await cb.result).get('key')).toBe('k');
      // One-shot: the listener is closed once the flow ended.
      await expect(fetch(cb.redirectUri)).rejects.toThrow();
    } finally {
      cb.close();
    }
  });

  it('a denial rejects with the caller’s error, pages are escaped; the timeout runs on the clock; the signal and close end it', async () => {
    const denied = await listenForLoopbackCallback({
      state: 'st',
      label: 'Test connect',
      respond: (p) => ({
        title: 'Denied',
        text: `<b>${p.get('error')}</b>`,
        error: new Error(`denied: ${p.get('error')}`),
      }),
    });
    const page = await (await fetch(`${denied.redirectUri}?error=access_denied&state=st`)).text();
    expect(page).toContain('&#60;b&#62;access_denied');
    await expect(denied.result).rejects.toThrow('denied: access_denied');

    const clock = new ManualClock(0);
    const slow = await listenForLoopbackCallback({
      state: 'st',
      label: 'Test connect',
      respond: ok,
      clock,
      timeoutMs: 1000,
    });
    await clock.advance(1000);
    await expect(slow.result).rejects.toThrow('Test connect: no answer from the browser in time');

    const host = new AbortController();
    const aborted = await listenForLoopbackCallback({
      state: 'st',
      label: 'Test connect',
      respond: ok,
      signal: host.signal,
    });
    host.abort(new Error('Ctrl-C'));
    await expect(aborted.result).rejects.toThrow('Ctrl-C');

    const closed = await listenForLoopbackCallback({ state: 'st', label: 'Test connect', respond: ok });
    closed.close();
    await expect(closed.result).rejects.toThrow('Test connect: the sign-in was closed');
  });
});
