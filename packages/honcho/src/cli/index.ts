/**
 * `@hermes-memory/honcho/cli` — Honcho in the `hermes-memory` command line (`hermes-memory honcho
 * …`), after the reference's `hermes honcho`: setup, status with health, the connection test,
 * session mappings, peers, recall mode, session strategy, token budgets, enable/disable, the AI
 * identity and the memory-file migration; its status and doctor lines; and its part of
 * `hermes-memory export` / `import` (decision 0603). Loaded by the CLI through the provider seam,
 * never by the agent; it never imports the provider's main entry.
 */
import { defineProviderCli, type ProviderCheck, type ProviderCliModule } from '@hermes-memory/core';
import { isConfigured } from '../config/resolve';
import { honchoMessagesOnDisk, honchoOutboxDir } from '../session/outbox';
import { type AuthCommandOptions, authCommands } from './auth-commands';
import { loadConfig } from './honcho-file';
import { exportHonchoRecords, importHonchoRecords, validateHonchoRecord } from './portable';
import { CONNECTION_COMMANDS, PEER_DATA_COMMANDS, statusDetails, testConnection } from './service-commands';
import { SETTINGS_COMMANDS, setupCommand } from './settings-commands';

export { exportHonchoRecords, importHonchoRecords, validateHonchoRecord } from './portable';

export type { AuthCommandOptions } from './auth-commands';

/**
 * The module with its sign-in's clock and browser opener given (tests, hosts embedding the CLI);
 * the default export is `createHonchoCli()`.
 */
export function createHonchoCli(options: AuthCommandOptions = {}): ProviderCliModule {
  return defineProviderCli({
    provider: 'honcho',
    summary:
      'set up and inspect Honcho: status, test, login, sessions, peers, mode, tokens, identity, migrate',
    commands: [
      setupCommand,
      ...CONNECTION_COMMANDS,
      ...authCommands(options),
      ...SETTINGS_COMMANDS,
      ...PEER_DATA_COMMANDS,
    ],
    status(ctx) {
      return { details: statusDetails(loadConfig(ctx), process.cwd(), ctx.home) };
    },
    doctor(ctx) {
      const config = loadConfig(ctx);
      const checks: ProviderCheck[] = config.warnings.map((warning, i) => ({
        id: `config-${i + 1}`,
        title: 'honcho.json',
        status: 'warn',
        detail: warning,
        fix: `Edit ${config.configPath ?? 'honcho.json'}.`,
      }));
      checks.push(
        isConfigured(config)
          ? {
              id: 'configured',
              title: 'Honcho settings',
              status: 'ok',
              detail: `workspace '${config.workspaceId}' (${config.configPath ?? 'environment'})`,
            }
          : {
              id: 'configured',
              title: 'Honcho settings',
              status: 'fail',
              detail: config.enabled ? 'no API key and no baseUrl' : 'disabled (enabled: false)',
              fix: "Run 'hermes-memory honcho setup' (or set HONCHO_API_KEY).",
            },
      );
      const waiting = honchoMessagesOnDisk(ctx.home);
      if (waiting > 0)
        checks.push({
          id: 'outbox',
          title: 'Undelivered messages',
          status: 'warn',
          detail: `${waiting} message(s) from a time Honcho was unreachable wait on disk (${honchoOutboxDir(ctx.home)}).`,
          fix: 'Start the agent while Honcho is reachable: they are sent first.',
        });
      return checks;
    },
    exportRecords: exportHonchoRecords,
    validateRecord: validateHonchoRecord,
    importRecords: importHonchoRecords,
    async postSetup(ctx) {
      const result = await testConnection(ctx, loadConfig(ctx));
      if (result.status === 'failed') throw ctx.fail(`Honcho connection test failed: ${result.message}`);
      ctx.out(result.message);
    },
  });
}

export default createHonchoCli();
