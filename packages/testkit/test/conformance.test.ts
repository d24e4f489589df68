import { afterAll, describe, expect, it } from 'vitest';
import {
  CONFORMANCE_CHECK_IDS,
  conformanceChecks,
  describeMemoryProvider,
  formatConformanceSummary,
  runConformanceCheck,
  runConformanceSuite,
} from '../src';
import { BROKEN } from './broken';
import { cleanPrototype } from './broken/prototype-pollution';
import { GoodProvider, harnessFor } from './fixtures/good-provider';

afterAll(() => cleanPrototype());

// The kit run the way a provider package runs it.
describeMemoryProvider(
  'good (testkit baseline)',
  harnessFor(() => new GoodProvider()),
);

describe('the conformance kit', () => {
  it('has stable, unique check ids and a broken provider for every check', () => {
    expect(new Set(CONFORMANCE_CHECK_IDS).size).toBe(CONFORMANCE_CHECK_IDS.length);
    const covered = new Set(Object.values(BROKEN).map((b) => b.check));
    const uncovered = CONFORMANCE_CHECK_IDS.filter((id) => !covered.has(id));
    expect(uncovered).toEqual([]);
    for (const check of conformanceChecks) expect(check.title.length).toBeGreaterThan(10);
  });

  it('passes every check for the baseline provider', async () => {
    const results = await runConformanceSuite(harnessFor(() => new GoodProvider()));
    expect(
      results.filter((r) => r.status !== 'passed'),
      formatConformanceSummary('good', results),
    ).toEqual([]);
  }, 60_000);

  it.each(Object.entries(BROKEN))(
    'catches %s',
    async (_file, broken) => {
      const result = await runConformanceCheck(broken.check, broken.harness);
      cleanPrototype();
      expect(result.status, result.message).toBe('failed');
      expect(result.message).toMatch(broken.message);
    },
    60_000,
  );

  it('reports explicit skips with their reason and unclaimed capabilities as skips', async () => {
    const harness = harnessFor(() => new GoodProvider(), {
      capabilities: { tools: true, persistence: true, prefetch: true, mirrors: false, backgroundSync: true },
    });
    const skipped = await runConformanceCheck('tools.hostile-args', harness, {
      skip: { 'tools.hostile-args': 'backend validates server-side; see issue #12' },
    });
    expect(skipped).toEqual({
      id: 'tools.hostile-args',
      status: 'skipped',
      message: 'backend validates server-side; see issue #12',
    });
    const unclaimed = await runConformanceCheck('mirror.add-replace-remove', harness);
    expect(unclaimed.status).toBe('skipped');
    expect(unclaimed.message).toMatch(/capability 'mirrors' is not claimed/);
    const summary = formatConformanceSummary('good', [skipped, unclaimed]);
    expect(summary).toContain('SKIP tools.hostile-args: backend validates server-side; see issue #12');
  });

  it('refuses skips without a reason and unknown check ids', async () => {
    const harness = harnessFor(() => new GoodProvider());
    await expect(
      runConformanceCheck('tools.hostile-args', harness, { skip: { 'tools.hostile-args': ' ' } }),
    ).rejects.toThrow(/needs a reason/);
    await expect(
      runConformanceCheck('tools.hostile-args', harness, { skip: { 'tools.typo': 'x' } }),
    ).rejects.toThrow(/Unknown conformance check 'tools.typo'/);
    await expect(runConformanceCheck('no.such-check', harness)).rejects.toThrow(
      /Known checks: availability\.synchronous/,
    );
  });

  it('a provider that refuses tools in a read-only context still passes the non-primary check', async () => {
    const result = await runConformanceCheck(
      'context.non-primary-readonly',
      harnessFor(() => new GoodProvider()),
    );
    expect(result).toEqual({ id: 'context.non-primary-readonly', status: 'passed' });
  });
});
