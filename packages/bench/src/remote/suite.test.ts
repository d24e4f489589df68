import { describe, expect, it } from 'vitest';
import { noop } from '../latency/providers/noop';
import { type RemoteRow, remoteTurnOverhead } from '../latency/remote';
import { summarize } from '../stats';
import { setupParts, turnOverheadCells } from './suite';

const row = (setup: string, step = 'syncAll (returns at once)', budgetMs = 0.1): RemoteRow => ({
  step,
  setup,
  summary: summarize([0.01, 0.02, 0.03]),
  budgetMs,
});

describe('remote suite: the turn-overhead table', () => {
  it('splits provider, what it ran against and the backend mode for a provider against its fake', () => {
    expect(setupParts('honcho vs its fake, every request hangs')).toEqual({
      provider: 'honcho',
      against: 'its fake',
      mode: 'every request hangs',
    });
    expect(turnOverheadCells(row('mem0 vs its fake, every request 503'))).toEqual([
      'mem0',
      'syncAll (returns at once)',
      'every request 503',
      3,
      '0.020 ms',
      '0.030 ms',
      '0.030 ms',
      'p99 < 0.1 ms',
      '✅',
    ]);
  });

  it('the no-op rows the harness writes put "noop" in the provider column and the mode in the backend column', async () => {
    const rows = await remoteTurnOverhead(
      noop,
      { runs: 3, firstTurns: 1, faultTurns: 3, modelCallMs: 0, modes: ['healthy', 'every request 503'] },
      () => {},
    );
    expect(rows.map((r) => turnOverheadCells(r).slice(0, 3))).toEqual(
      ['healthy', 'every request 503'].flatMap((mode) => [
        ['noop (vs manager overhead)', 'first turn: onTurnStart + prefetchAll', mode],
        ['noop (vs manager overhead)', 'prefetchAll, turns after the first', mode],
        ['noop (vs manager overhead)', 'syncAll (returns at once)', mode],
      ]),
    );
    expect(setupParts(rows[0]!.setup)).toEqual({
      provider: 'noop',
      against: 'manager overhead',
      mode: 'healthy',
    });
  });

  it('a setup that does not follow the pattern stays whole in the provider column', () => {
    expect(turnOverheadCells(row('a hand-written row')).slice(0, 3)).toEqual([
      'a hand-written row',
      'syncAll (returns at once)',
      '',
    ]);
  });
});
