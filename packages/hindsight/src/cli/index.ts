/**
 * `@hermes-memory/hindsight/cli` — Hindsight in the `hermes-memory` command line
 * (`hermes-memory hindsight status [--probe] | setup | connect | test | doctor`), its status and
 * doctor lines, its step after `hermes-memory setup hindsight` (the connection test and the
 * starter bank template), and its part of `hermes-memory export` / `import` (decisions 0601,
 * 0603, 0952). Loaded by the CLI through the provider seam, never by the agent.
 */
import { defineProviderCli, type ProviderCliModule } from '@hermes-memory/core';
import { doctorCommand, setupCommand, statusCommand, testCommand } from './commands';
import { type ConnectOptions, createConnectCommand } from './connect';
import { cliSetup, testConnection } from './connection';
import { hindsightChecks, hindsightStatus } from './inspect';
import { exportHindsightRecords, importHindsightRecords, validateHindsightRecord } from './portable';
import { offerTemplate } from './templates';

export { connectedApiUrl, connectUrl, DEFAULT_CONNECT_URL } from './connect';
export { type ConnectionReport, profileName, testConnection } from './connection';
export { DEFAULT_TEMPLATES_URL, type TemplateEntry } from './templates';

/** The module with the browser answered by the caller (tests, other front ends). */
export function createHindsightCli(options: ConnectOptions = {}): ProviderCliModule {
  return defineProviderCli({
    provider: 'hindsight',
    summary:
      'settings, connection test, setup of hindsight/config.json with a starter bank template, browser connect; export/import of the bank’s documents',
    configPaths: ['memory.hindsight'],
    commands: [statusCommand, setupCommand, createConnectCommand(options), testCommand, doctorCommand],
    status: hindsightStatus,
    doctor: hindsightChecks,
    exportRecords: exportHindsightRecords,
    validateRecord: validateHindsightRecord,
    importRecords: importHindsightRecords,
    // After `hermes-memory setup hindsight` saved the settings: test them, then offer a starter
    // template, as the reference's wizard ends.
    async postSetup(ctx) {
      const setup = cliSetup(ctx);
      const report = await testConnection(ctx, setup);
      ctx.out(report.ok ? ctx.style.green(report.summary) : ctx.style.red(report.summary));
      if (report.ok) await offerTemplate(ctx, setup, { offer: true });
    },
  });
}

export default createHindsightCli();
