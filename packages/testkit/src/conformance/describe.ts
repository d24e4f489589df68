import type { MemoryProvider } from '@hermes-memory/core';
import { afterAll, describe, it } from './vitest-runner';
import {
  conformanceChecks,
  formatConformanceSummary,
  runConformanceCheck,
  skipReason,
  validateConformanceOptions,
} from './suite';
import type { CheckResult, ConformanceOptions, ProviderHarness } from './types';

/**
 * Register the conformance suite as vitest tests: one `describe` per provider, one test per check,
 * named by its stable id. Skipped checks (explicit, with a reason, or an unclaimed capability) are
 * reported as skipped tests AND printed in a summary after the suite, never dropped silently.
 *
 * ```ts
 * describeMemoryProvider('template', {
 *   create: ({ hermesHome }) => createTemplateProvider(),
 *   settle: (provider) => provider.idle(),
 * });
 * ```
 */
export function describeMemoryProvider<P extends MemoryProvider>(
  name: string,
  harness: ProviderHarness<P>,
  options: ConformanceOptions = {},
): void {
  validateConformanceOptions(options);
  const results: CheckResult[] = [];
  describe(`memory provider conformance: ${name}`, () => {
    for (const check of conformanceChecks) {
      const reason = skipReason(check.id, harness as ProviderHarness, options);
      const title = `${check.id}: ${check.title}`;
      if (reason !== null) {
        it(`${title} (skipped: ${reason})`, (context) => {
          results.push({ id: check.id, status: 'skipped', message: reason });
          context.skip(reason);
        });
        continue;
      }
      it(title, { timeout: 60_000 }, async () => {
        const result = await runConformanceCheck(check.id, harness, options);
        results.push(result);
        if (result.status === 'failed') {
          const error = new Error(`[${check.id}] ${result.message ?? 'failed'}`);
          if (result.error instanceof Error && result.error.name !== 'ConformanceFailure')
            error.cause = result.error;
          throw error;
        }
      });
    }
    afterAll(() => {
      if (results.some((r) => r.status !== 'passed')) console.info(formatConformanceSummary(name, results));
    });
  });
}
