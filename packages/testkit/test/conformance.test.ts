import { afterAll, describe, expect, it } from 'vitest';
import {
  CONFORMANCE_CHECK_IDS,
  conformanceChecks,
  formatConformanceSummary,
  resolveCapabilities,
  runConformanceCheck,
  runConformanceSuite,
} from '../src';
import { describeMemoryProvider } from '../src/vitest';
import { BROKEN } from './broken';
import { cleanPrototype } from './broken/prototype-pollution';
import { DurableProvider, durableHarness } from './fixtures/durable-provider';
import { GoodProvider, harnessFor } from './fixtures/good-provider';
import { GoodRemoteProvider, notesBackend, remoteHarnessFor } from './fixtures/good-remote-provider';

afterAll(async () => {
  cleanPrototype();
  await (await notesBackend()).close();
});

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
      results.filter((r) => r.status === 'failed'),
      formatConformanceSummary('good', results),
    ).toEqual([]);
    // Only checks for capabilities (or capability values) it does not claim are skipped.
    for (const skipped of results.filter((r) => r.status === 'skipped')) {
      expect(skipped.message).toMatch(/^capability '(prefetch|sync|remote|durability)' /);
    }
  }, 60_000);

  it('passes every check for the remote baseline against its fake backend, faults included', async () => {
    const backend = await notesBackend();
    const results = await runConformanceSuite(
      remoteHarnessFor(backend, (url) => new GoodRemoteProvider(url)),
    );
    expect(
      results.filter((r) => r.status === 'failed'),
      formatConformanceSummary('good remote', results),
    ).toEqual([]);
    const ran = results.filter((r) => r.status === 'passed').map((r) => r.id);
    expect(ran).toEqual(expect.arrayContaining(['remote.backend-observable', 'faults.shutdown-deadline']));
  }, 120_000);

  it('passes the kill -9 check for a provider that commits before acknowledging', async () => {
    const result = await runConformanceCheck('durability.kill-9', durableHarness('durable'));
    expect(result, result.message).toEqual({ id: 'durability.kill-9', status: 'passed' });
    expect(new DurableProvider().name).toBe('durable');
  }, 120_000);

  it('reads the boolean capability spellings of the first version', () => {
    const old = resolveCapabilities({
      create: () => new GoodProvider(),
      capabilities: { prefetch: true, mirrors: true, backgroundSync: false },
    });
    expect(old).toMatchObject({
      prefetch: 'queued',
      mirrors: 'all',
      sync: false,
      remote: false,
      durability: false,
    });
    const defaults = resolveCapabilities({ create: () => new GoodProvider() });
    expect(defaults).toMatchObject({
      tools: true,
      persistence: true,
      prefetch: 'queued',
      sync: 'queued',
      mirrors: false,
    });
  });

  it('skips a check written for another value of a claimed capability, saying why', async () => {
    const result = await runConformanceCheck(
      'prefetch.turn-start',
      harnessFor(() => new GoodProvider()),
    );
    expect(result).toEqual({
      id: 'prefetch.turn-start',
      status: 'skipped',
      message: "capability 'prefetch' is 'queued', this check is for 'turn-start'",
    });
  });

  it.each(Object.entries(BROKEN))(
    'catches %s',
    async (_file, broken) => {
      const harness = typeof broken.harness === 'function' ? await broken.harness() : broken.harness;
      const result = await runConformanceCheck(broken.check, harness);
      cleanPrototype();
      expect(result.status, result.message).toBe('failed');
      expect(result.message).toMatch(broken.message);
    },
    60_000,
  );

  it('reports explicit skips with their reason and unclaimed capabilities as skips', async () => {
    const harness = harnessFor(() => new GoodProvider(), {
      capabilities: { tools: true, persistence: true, prefetch: 'queued', sync: 'queued', mirrors: false },
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
