import type { MemoryProvider } from '@hermes-memory/core';
import { CHECKS, type CheckDefinition } from './checks/index';
import { CheckRuntime, resolveCapabilities } from './runtime';
import type { CheckResult, ConformanceCheck, ConformanceOptions, ProviderHarness } from './types';

/** Every check the suite runs, in order, without the implementation. */
export const conformanceChecks: readonly ConformanceCheck[] = CHECKS.map(({ run: _run, ...check }) => check);

/** The stable ids, for `options.skip` and `runConformanceCheck`. */
export const CONFORMANCE_CHECK_IDS: readonly string[] = CHECKS.map((c) => c.id);

function definition(id: string): CheckDefinition {
  const check = CHECKS.find((c) => c.id === id);
  if (!check) {
    throw new Error(`Unknown conformance check '${id}'. Known checks: ${CONFORMANCE_CHECK_IDS.join(', ')}`);
  }
  return check;
}

/**
 * Reject typos and reason-less skips up front: a skip that names no check, or gives no reason,
 * would otherwise hide a failure silently.
 */
export function validateConformanceOptions(options: ConformanceOptions = {}): void {
  for (const [id, reason] of Object.entries(options.skip ?? {})) {
    definition(id);
    if (typeof reason !== 'string' || reason.trim() === '') {
      throw new Error(`Conformance skip for '${id}' needs a reason (options.skip['${id}'] = 'why').`);
    }
  }
}

/** Why a check will not run (an explicit skip or an unclaimed capability), or null when it runs. */
export function skipReason(
  id: string,
  harness: ProviderHarness,
  options: ConformanceOptions = {},
): string | null {
  const check = definition(id);
  const explicit = options.skip?.[id];
  if (explicit) return explicit;
  if (check.capability) {
    const claimed = resolveCapabilities(harness)[check.capability];
    if (claimed === false) return `capability '${check.capability}' is not claimed by the harness`;
    if (check.capabilityValues && !check.capabilityValues.includes(String(claimed))) {
      return `capability '${check.capability}' is '${String(claimed)}', this check is for ${check.capabilityValues.map((v) => `'${v}'`).join(' or ')}`;
    }
  }
  return null;
}

/**
 * Run one check against a harness and report the verdict instead of throwing, so tests can assert
 * that a broken provider fails a specific check with a useful message.
 */
export async function runConformanceCheck<P extends MemoryProvider>(
  id: string,
  harness: ProviderHarness<P>,
  options: ConformanceOptions = {},
): Promise<CheckResult> {
  validateConformanceOptions(options);
  const check = definition(id);
  const reason = skipReason(id, harness as ProviderHarness, options);
  if (reason !== null) return { id, status: 'skipped', message: reason };
  const runtime = new CheckRuntime(harness as ProviderHarness, options);
  try {
    await check.run(runtime);
    return { id, status: 'passed' };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { id, status: 'failed', message, error };
  } finally {
    await runtime.dispose();
  }
}

/** Run every check in order (one at a time: the I/O observation is process-wide). */
export async function runConformanceSuite<P extends MemoryProvider>(
  harness: ProviderHarness<P>,
  options: ConformanceOptions = {},
): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const id of CONFORMANCE_CHECK_IDS) results.push(await runConformanceCheck(id, harness, options));
  return results;
}

/** One line per skipped or failed check, for logs and CI output. */
export function formatConformanceSummary(name: string, results: readonly CheckResult[]): string {
  const count = (status: CheckResult['status']) => results.filter((r) => r.status === status).length;
  const lines = [
    `[hermes-memory conformance] ${name}: ${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped`,
  ];
  for (const r of results) {
    if (r.status !== 'passed')
      lines.push(`  ${r.status === 'skipped' ? 'SKIP' : 'FAIL'} ${r.id}: ${r.message ?? ''}`);
  }
  return lines.join('\n');
}
