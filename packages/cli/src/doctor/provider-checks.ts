import { describeError, loadHermesConfig } from '@hermes-memory/core';
import type { CommandContext } from '../context';
import { providerCliContext, relevantProviderClis } from '../provider-seam';
import type { CheckResult } from './checks';

/**
 * Checks contributed by providers' CLI modules (decision 0603): the active provider's, the
 * secondaries' (memory.secondary) and those of providers that keep their data in HERMES_HOME. Ids become `<provider>.<id>`. A module that fails
 * to load, or whose `doctor` throws, is a failed check of its own, never a crashed doctor.
 */
export async function checkProviderContributions(ctx: CommandContext): Promise<CheckResult[]> {
  let config: ReturnType<typeof loadHermesConfig>;
  try {
    config = loadHermesConfig(ctx.home);
  } catch {
    return []; // the config check already reports a corrupt file
  }
  const { loaded, failed } = await relevantProviderClis(ctx, {
    active: config.memory.provider,
    secondary: config.memory.secondary.map((entry) => entry.provider),
  });
  const out: CheckResult[] = failed.map((f) => ({
    id: `${f.id}.cli`,
    provider: f.id,
    title: `Provider ${f.id} command-line module`,
    status: 'fail',
    detail: f.error,
    fix: `Reinstall ${f.packageName}, or report it to its authors.`,
  }));
  for (const { id, packageName, module } of loaded) {
    if (!module.doctor) continue;
    try {
      const checks = await module.doctor(providerCliContext(ctx, { id, module }, { config }));
      for (const check of checks) out.push({ ...check, id: `${id}.${check.id}`, provider: id });
    } catch (error) {
      out.push({
        id: `${id}.doctor`,
        provider: id,
        title: `Provider ${id} checks`,
        status: 'fail',
        detail: `could not run: ${describeError(error)}`,
        fix: `Reinstall ${packageName}, or report it to its authors.`,
      });
    }
  }
  return out;
}
