/**
 * `@hermes-memory/openviking/cli` — the provider in the `hermes-memory` command line, through the
 * provider seam (decision 0603): `hermes-memory openviking status [--probe] | setup | test |
 * doctor`, its lines in `hermes-memory status` and `doctor`, the setup wizard for
 * `hermes-memory setup openviking` on a terminal, and the connection test after its `--yes`
 * form. It never imports the provider's main entry.
 */
import { defineProviderCli } from '@hermes-memory/core';
import { doctorCommand, setupCommand, statusCommand, testCommand } from './commands';
import { testConnection } from './connection';
import { openvikingChecks, openvikingStatus } from './inspect';
import { runSetupWizard } from './setup-wizard';

export default defineProviderCli({
  provider: 'openviking',
  summary: 'OpenViking server: settings, connection test, setup, pending sessions',
  commands: [statusCommand, setupCommand, testCommand, doctorCommand],
  status: openvikingStatus,
  doctor: openvikingChecks,
  // `hermes-memory setup openviking` on a terminal runs the same wizard as `openviking setup`.
  setupWizard: (ctx, prompter) => runSetupWizard(ctx, prompter),
  async postSetup(ctx) {
    const result = await testConnection(ctx);
    if (result.status !== 'ok')
      throw ctx.fail(
        `The settings are saved, but the server did not answer: ${result.message}`,
        "Check with 'hermes-memory openviking test'.",
      );
    ctx.out(`${ctx.style.green('✓')} ${result.message} Start a new session to use it.`);
  },
});
