/**
 * `@hermes-memory/provider-template/cli` — the provider in the `hermes-memory` command line, through
 * the provider seam (decision 0603): its lines in `status` and `doctor`, a connection test
 * (`hermes-memory template check`) and the same test after `hermes-memory setup template`. The
 * runtime health in `status` and the probe of `status --probe` and `doctor` come from the
 * provider's `health()` and `probe()`. This module never imports the provider's main entry, so it
 * stays light; add your backend's commands (list, forget, export/import) beside `check`.
 */
import { type ProviderCommand, defineProviderCli } from '@hermes-memory/core';
import { testConnection } from './connection';
import { templateChecks, templateStatus } from './inspect';

const checkCommand: ProviderCommand = {
  name: 'check',
  summary: 'test the connection: one authenticated request to the service',
  usage: `Usage: hermes-memory template check [--json]

Send one authenticated request to the configured service (memory.template in config.yaml,
TEMPLATE_* in the environment or $HERMES_HOME/.env) and say whether it answered, how fast, or why
not. Exits 1 when it did not. The API key is never printed.`,
  async run(ctx, argv) {
    ctx.parseArgs(argv, {});
    const result = await testConnection(ctx);
    if (ctx.json) ctx.printJson(result);
    else {
      const where = result.endpoint ? ctx.style.gray(` (${result.endpoint})`) : '';
      const latency = result.latencyMs !== undefined ? ctx.style.gray(` ${result.latencyMs} ms`) : '';
      if (result.status === 'ok') ctx.out(`${ctx.style.green('✓')} ${result.message}${latency}`);
      else if (result.status === 'skipped') ctx.out(`${ctx.style.gray('-')} ${result.message}${where}`);
      else ctx.out(`${ctx.style.red('✗')} connection failed${where}: ${result.message}`);
    }
    return result.status === 'failed' ? 1 : 0;
  },
};

export default defineProviderCli({
  provider: 'template',
  summary: 'test the connection to the Template service',
  commands: [checkCommand],
  status: templateStatus,
  doctor: templateChecks,
  // After `hermes-memory setup template` saved the settings: the same connection test.
  async postSetup(ctx, _saved) {
    const result = await testConnection(ctx);
    if (result.status === 'failed')
      throw ctx.fail(
        `The settings are saved, but the service did not answer: ${result.message}`,
        "Check them with 'hermes-memory template check'.",
      );
    if (result.status === 'ok')
      ctx.out(`${ctx.style.green('✓')} ${result.message} Start a new session to use it.`);
  },
});
