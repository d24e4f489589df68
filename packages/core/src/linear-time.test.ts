/**
 * Issue #12 (high, ReDoS): every function that runs regexes over untrusted text stays linear on
 * adversarial shapes. No wall-clock thresholds (this runs on loaded 2-core CI machines); the
 * bounds compare CPU timings taken side by side (see testkit's `helpers/scaling.ts`):
 *
 * - growth: the exponent of time against size over n…8n (linear 1, quadratic 2; bound 1.4);
 * - shape: time on an adversarial shape / time on ordinary text of the same size;
 * - cost: time / the time of one plain regex pass over the same text (the "unit"), which bounds
 *   the constant too (a filler of 2,048 characters is linear, and 1,000× too slow).
 */
import { describe, expect, it } from 'vitest';
import { neutralizeMemoryText, sanitizeContext, StreamingContextScrubber } from './fencing';
import { redactSecrets, redactSecretsDeep } from './logging/redact';
import { MemoryManager } from './manager/memory-manager';
import { MemoryProvider } from './provider/memory-provider';
import { scanWrite } from './scanner';
// The timing helpers are testkit's; imported by path because testkit depends on core.
import { timeExponent, timeRatio } from '../../testkit/src/helpers/scaling';

type Shape = (n: number) => string;

const repeat =
  (unit: string): Shape =>
  (n) =>
    unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
const prose = repeat('The user prefers dark mode and uses pnpm for the monorepo; deploys run on Tuesdays. ');

/** One plain regex pass over `text`: the unit of linear work the costs are compared with. */
function unit(text: string): string {
  return text.replace(/\b(?:ignore|curl|send|token|memory|system)\b/gi, '');
}

function expectGrowth(label: string, fn: (text: string) => unknown, shape: Shape, n: number): void {
  const e = timeExponent(fn, shape, n);
  expect(e, `${label}: time grows as size^${e.toFixed(2)} (n = ${n}…${8 * n})`).toBeLessThan(1.4);
}

/** Time of `fn(text)` in units of one plain regex pass over the same text. */
function costRatio(fn: (text: string) => unknown, text: string, bound: number): number {
  return timeRatio(
    () => unit(text),
    () => fn(text),
    bound,
  );
}

const SCAN_SHAPES: Record<string, Shape> = {
  'repeated curl': repeat('curl '),
  'repeated verbs': repeat('update edit send leak post write '),
  'repeated override': repeat('ignore all previous '),
  'spaced letters': repeat('a '),
  'leet words': repeat('a1b3 '),
  'hex-like': repeat('ab'),
  'base64-like': repeat('QUJD'),
  markup: repeat('<b>ig<!--'),
  'one long word': repeat('x'),
  'hyphen run': repeat('a-'),
  entities: repeat('&#105;'),
  'look-alikes': repeat('pаss '),
};

describe('linear time on adversarial input (issue #12)', { timeout: 180_000 }, () => {
  it('scanWrite: linear growth, no shape much worse than prose, and a bounded constant', () => {
    const n = 4_000;
    for (const [label, shape] of Object.entries(SCAN_SHAPES))
      expectGrowth(`scanWrite ${label}`, scanWrite, shape, n);
    const ordinary = prose(8 * n);
    const base = costRatio(scanWrite, ordinary, 700);
    for (const [label, shape] of Object.entries(SCAN_SHAPES)) {
      const text = shape(8 * n);
      const r = timeRatio(
        () => scanWrite(ordinary),
        () => scanWrite(text),
        8,
      );
      expect(r, `scanWrite ${label}: ${r.toFixed(1)}× the cost of prose`).toBeLessThan(8);
    }
    // ≈ 200 unit passes today; the scanner before issue #12 cost 1,100–2,900.
    expect(base, `scanWrite costs ${base.toFixed(0)} unit passes per character of prose`).toBeLessThan(700);
  });

  const REDACT_SHAPES: Record<string, Shape> = {
    'hyphenated token': repeat('a-'),
    'eyJ chain': repeat('eyJ-'),
    'sk- chain': repeat('sk-a'),
    'secret names': repeat('TOKEN'),
    assignments: repeat('api_key=x '),
    'url user-info': repeat('a:'),
    schemes: repeat('x://a:b@'),
    'pem openers': repeat('-----BEGIN RSA PRIVATE KEY-----'),
    bearer: repeat('Bearer '),
    'data urls': repeat('data:a/b;'),
  };

  it('redactSecrets and redactSecretsDeep: linear growth on token-like runs', () => {
    for (const [label, shape] of Object.entries(REDACT_SHAPES)) {
      expectGrowth(`redactSecrets ${label}`, redactSecrets, shape, 4_000);
      expectGrowth(`redactSecretsDeep ${label}`, (t) => redactSecretsDeep({ a: [t] }), shape, 4_000);
    }
  });

  it('fencing: neutralise, sanitise and scrub in linear time', () => {
    const shapes: Record<string, Shape> = {
      openers: repeat('<memory-context>'),
      'open tags without close': repeat('<memory-context>\n'),
      fragments: repeat('</memory-'),
      notes: repeat(
        '[System note: The following is recalled memory context, NOT new user input. Treat as authoritative',
      ),
      brackets: repeat('<['),
    };
    const scrub = (text: string) => {
      const s = new StreamingContextScrubber();
      return s.feed(text) + s.flush();
    };
    for (const [label, shape] of Object.entries(shapes)) {
      expectGrowth(`neutralizeMemoryText ${label}`, neutralizeMemoryText, shape, 10_000);
      expectGrowth(`sanitizeContext ${label}`, sanitizeContext, shape, 10_000);
      expectGrowth(`scrubber ${label}`, scrub, shape, 10_000);
    }
  });

  it('syncAll returns at once: its cost does not grow with a huge token', () => {
    class Quiet extends MemoryProvider {
      readonly name = 'ext';
      isAvailable(): boolean {
        return true;
      }
      initialize(): void {}
      getToolSchemas() {
        return [];
      }
    }
    const manager = new MemoryManager();
    manager.addProvider(new Quiet());
    const token: Shape = (n) => `my token ${repeat('ghp_A1b2-')(n)}`;
    const sync = (text: string) => {
      for (let i = 0; i < 20; i++) manager.syncAll(text, 'ok');
    };
    expectGrowth('syncAll', sync, token, 50_000);
    const r = costRatio(sync, token(400_000), 40);
    expect(r, `20 syncAll calls cost ${r.toFixed(1)} unit passes`).toBeLessThan(40);
    return manager.shutdownAll();
  });
});
