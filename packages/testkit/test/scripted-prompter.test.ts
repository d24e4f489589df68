import { defineProviderCli, PROMPT_CANCELLED } from '@hermes-memory/core';
import { afterEach, describe, expect, it } from 'vitest';
import { runProviderCliCommand, scriptedPrompter, tempHermesHome } from '../src/index';

const homes: Array<{ cleanup(): void }> = [];
afterEach(() => {
  for (const h of homes.splice(0)) h.cleanup();
});

/** A module whose one command asks a select, a text and a password, and prints what it got. */
const asking = defineProviderCli({
  provider: 'asker',
  summary: 'asks',
  commands: [
    {
      name: 'ask',
      summary: 'ask',
      usage: 'Usage: hermes-memory asker ask',
      async run(ctx) {
        if (!ctx.prompter) throw ctx.fail('no prompter');
        const kind = await ctx.prompter.select('Kind?', [
          { value: 'a', label: 'A' },
          { value: 'b', label: 'B' },
        ]);
        if (kind === PROMPT_CANCELLED) return 1;
        const name = await ctx.prompter.text('Name?', {
          initial: 'dflt',
          validate: (v) => (v.includes(' ') ? 'no spaces' : undefined),
        });
        if (name === PROMPT_CANCELLED) return 1;
        const key = await ctx.prompter.password('Key?', {});
        if (key === PROMPT_CANCELLED) return 1;
        ctx.out(`${kind} ${name} ${key.length}`);
        return 0;
      },
    },
  ],
});

function home(): string {
  const h = tempHermesHome('hm-prompt-');
  homes.push(h);
  return h.path;
}

describe('scriptedPrompter drives a provider command through ctx.prompter', () => {
  it('answers in order, keeps defaults through a function, records every question', async () => {
    const p = scriptedPrompter(['b', (q) => q.initial ?? '', 'secret']);
    const run = await runProviderCliCommand(asking, ['ask'], { home: home(), prompter: p.prompter });
    expect(run).toMatchObject({ code: 0, stdout: 'b dflt 6\n' });
    expect(p.asked.map((q) => [q.kind, q.message])).toEqual([
      ['select', 'Kind?'],
      ['text', 'Name?'],
      ['password', 'Key?'],
    ]);
    expect(p.remaining).toEqual([]);
    // A prompt's own check is recorded with it, so a test can probe what it accepts.
    expect(p.asked[1]!.validate?.('a b')).toBe('no spaces');
    expect(p.asked[2]!.validate).toBeUndefined();
  });
  it('a cancel is PROMPT_CANCELLED; no prompter without one (not interactive)', async () => {
    const p = scriptedPrompter([PROMPT_CANCELLED]);
    expect((await runProviderCliCommand(asking, ['ask'], { home: home(), prompter: p.prompter })).code).toBe(
      1,
    );
    const none = await runProviderCliCommand(asking, ['ask'], { home: home() });
    expect(none).toMatchObject({ code: 1, stderr: 'hermes-memory: no prompter\n' });
  });
  it('fails loudly on an unscripted question, an answer that is not an option, or a rejected one', async () => {
    for (const [script, message] of [
      [['a', 'x'], /Unscripted question: Key\?/],
      [['c'], /'c' is not an option of 'Kind\?': a, b/],
      [['a', 'has space'], /rejected: no spaces/],
    ] as const) {
      const run = await runProviderCliCommand(asking, ['ask'], {
        home: home(),
        prompter: scriptedPrompter(script).prompter,
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(message);
    }
  });
});
