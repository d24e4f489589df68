import { afterEach, describe, expect, it } from 'vitest';
import { type Rig, startRig, WORKSPACE } from './harness';

let rig: Rig;
afterEach(async () => rig?.close());

describe('honcho over the fake', () => {
  it('two sessions: session 2 recalls session 1', async () => {
    rig = await startRig();
    const first = rig.provider({ writeFrequency: 'turn' });
    await rig.init(first, 's1');
    await first.idle();
    first.onTurnStart(1, 'hi');
    await first.syncTurn('I am allergic to peanuts and I work on compilers.', 'Noted, no peanuts.');
    await first.shutdown();
    expect(rig.fake.messages(WORKSPACE, 'demo').map((m) => m.content)).toContain(
      'I am allergic to peanuts and I work on compilers.',
    );

    const second = rig.provider();
    await rig.init(second, 's2');
    second.onTurnStart(1, 'any food allergies?');
    const text = await second.prefetch('What food allergies do I have?');
    expect(text).toContain('peanuts');
    const tool = JSON.parse(await second.handleToolCall('honcho_search', { query: 'peanuts' }));
    expect(tool.result).toContain('allergic to peanuts');
  });
});
