/**
 * `@hermes-memory/hindsight/cli` — Hindsight in the `hermes-memory` command line
 * (`hermes-memory hindsight status [--probe] | setup | connect | test | doctor`), its status and
 * doctor lines, and its part of `hermes-memory export` / `import` (decisions 0601, 0603). Loaded by
 * the CLI through the provider seam, never by the agent.
 */
import { defineProviderCli, type ProviderCliModule } from '@hermes-memory/core';
import {
  createSetupCommand,
  doctorCommand,
  type HindsightCliOptions,
  statusCommand,
  testCommand,
} from './commands';
import { type ConnectOptions, createConnectCommand } from './connect';
import { hindsightChecks, hindsightStatus } from './inspect';
import { exportHindsightRecords, importHindsightRecords, validateHindsightRecord } from './portable';

export { connectedApiUrl, connectUrl, DEFAULT_CONNECT_URL } from './connect';
export { type ConnectionReport, profileName, testConnection } from './connection';
export type { Choice, Select } from './prompt';
export { DEFAULT_TEMPLATES_URL, type TemplateEntry } from './templates';

/** The module with its questions and browser answered by the caller (tests, other front ends). */
export function createHindsightCli(options: HindsightCliOptions & ConnectOptions = {}): ProviderCliModule {
  return defineProviderCli({
    provider: 'hindsight',
    summary:
      'settings, connection test, setup of hindsight/config.json with a starter bank template, browser connect; export/import of the bank’s documents',
    configPaths: ['memory.hindsight'],
    commands: [
      statusCommand,
      createSetupCommand(options),
      createConnectCommand(options),
      testCommand,
      doctorCommand,
    ],
    status: hindsightStatus,
    doctor: hindsightChecks,
    exportRecords: exportHindsightRecords,
    validateRecord: validateHindsightRecord,
    importRecords: importHindsightRecords,
  });
}

export default createHindsightCli();
