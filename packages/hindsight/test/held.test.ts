/**
 * The cap on turns held while the breaker is open (decision 0953), on `HeldTurns` itself: its
 * running character totals must stay right however the held logs change — turns appended, an
 * earlier session's log held, handed to the writer (`take`) and delivered or held again after a
 * failed retain, the watermark advanced by a retain, turns dropped over the cap.
 */
import { collectLogs } from '@hermes-memory/testkit';
import { describe, expect, it } from 'vitest';
import { HeldTurns, undelivered } from '../src/held';
import { newSessionLog, type SessionLog } from '../src/retain';

const turn = (chars: number, tag = 'x') => tag.repeat(chars);

describe('held turns', () => {
  it('the cap keeps a running character total across hold, flush and drop', () => {
    const logs = collectLogs();
    const held = new HeldTurns({ turns: 3, chars: 30 }, () => logs.logger);
    const a = newSessionLog('a', '', 0);
    a.turns.push(turn(5, 'a'), turn(5, 'b'));
    held.cap(a);
    expect([held.count(a), held.dropped]).toEqual([2, 0]);

    // A session switch while open: a is held, b is current.
    a.dispatched = a.turns.length;
    held.hold(a);
    const b = newSessionLog('b', 'a', 0);
    b.turns.push(turn(5, 'c'));
    held.cap(b);
    expect([held.count(b), held.dropped]).toEqual([3, 0]);
    b.turns.push(turn(5, 'd')); // four turns: the oldest, a's first, goes
    held.cap(b);
    expect([held.count(b), held.dropped]).toEqual([3, 1]);
    expect(a.turns).toEqual(['', turn(5, 'b')]);
    expect(a.retained).toBe(1);

    // Handed to the writer, the retain fails: held again, its characters still counted.
    expect(held.take()).toEqual([a]);
    held.hold(a);
    b.turns.push(turn(23, 'e')); // 4 turns, 38 characters: a's second and b's first go
    held.cap(b);
    expect([held.count(b), held.dropped]).toEqual([2, 3]);
    expect(undelivered(a)).toBe(0);
    expect(held.take()).toEqual([]); // a has nothing left to deliver

    // A retain of b goes through (its first two turns): they leave the total.
    b.retained = 2;
    held.delivered();
    expect(logs.messages().filter((m) => m.includes('3 held turn(s) were dropped'))).toHaveLength(1);
    b.turns.push(turn(7, 'f')); // e + f: 30 characters, at the cap
    held.cap(b);
    expect([held.count(b), held.dropped]).toEqual([2, 3]);
    b.turns.push(turn(1, 'g')); // 31 characters: e goes, f and g stay
    held.cap(b);
    expect([held.count(b), held.dropped]).toEqual([2, 4]);
    expect(b.turns.slice(b.retained)).toEqual([turn(7, 'f'), turn(1, 'g')]);
    expect(b.dispatched).toBe(3);
    // One warning per outage: the first drop after a delivery warns again.
    expect(logs.messages().filter((m) => m.includes('dropping the oldest'))).toHaveLength(2);

    // An old server's log (its document is replaced by the whole session) is never capped.
    const old = newSessionLog('old', '', 0);
    old.appends = false;
    for (let i = 0; i < 5; i++) old.turns.push(turn(40));
    held.cap(old);
    expect([held.count(old), held.dropped]).toEqual([5, 4]);
  });

  it('whatever happens to the logs, the cap keeps exactly the newest turns that fit (seeded walk against the rule)', () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    const limits = { turns: 6, chars: 120 };
    const logs = collectLogs();
    const held = new HeldTurns(limits, () => logs.logger);
    /** What `HeldTurns` should hold besides the current log, oldest first (mirrors hold/take). */
    let earlier: SessionLog[] = [];
    let current = newSessionLog('s0', '', 0);
    for (let step = 0; step < 2_000; step++) {
      const op = random(10);
      if (op < 6) current.turns.push(turn(1 + random(40)));
      else if (op === 6) {
        current.dispatched = current.turns.length;
        held.hold(current);
        if (undelivered(current) > 0 && !earlier.includes(current)) earlier.push(current);
        current = newSessionLog(`s${step}`, '', 0);
      } else if (op === 7) {
        // Flush: each earlier log handed to the writer is delivered or, failing, held again.
        const taken = held.take();
        expect(taken).toEqual(earlier.filter((log) => undelivered(log) > 0));
        earlier = [];
        for (const log of taken)
          if (random(2) === 0) log.retained = log.turns.length;
          else {
            held.hold(log);
            earlier.push(log);
          }
      } else if (op === 8) current.retained += random(undelivered(current) + 1);
      // What the cap must leave: the newest turns that fit in both limits, across the held logs.
      const sizes = [...earlier, current].flatMap((log) =>
        log.turns.slice(log.retained).map((t) => t.length),
      );
      let keep = 0;
      let chars = 0;
      for (let i = sizes.length - 1; i >= 0; i--) {
        if (keep + 1 > limits.turns || chars + sizes[i]! > limits.chars) break;
        keep += 1;
        chars += sizes[i]!;
      }
      const before = held.dropped;
      held.cap(current);
      earlier = earlier.filter((log) => undelivered(log) > 0);
      expect(held.dropped - before).toBe(sizes.length - keep);
      expect(held.count(current)).toBe(keep);
    }
    expect(held.dropped).toBeGreaterThan(100);
  });
});
