/**
 * `@hermes-memory/hindsight/cli` — Hindsight in the `hermes-memory` command line
 * (`hermes-memory hindsight status [--probe] | setup | test | doctor`), its status and doctor
 * lines, and its part of `hermes-memory export` / `import` (decisions 0601, 0603). Loaded by the
 * CLI through the provider seam, never by the agent.
 */
import { defineProviderCli } from '@hermes-memory/core';
import { doctorCommand, setupCommand, statusCommand, testCommand } from './commands';
import { hindsightChecks, hindsightStatus } from './inspect';
import { exportHindsightRecords, importHindsightRecords, validateHindsightRecord } from './portable';

export { type ConnectionReport, profileName, testConnection } from './connection';

export default defineProviderCli({
  provider: 'hindsight',
  summary: 'settings, connection test, setup of hindsight/config.json; export/import of the bank’s documents',
  configPaths: ['memory.hindsight'],
  commands: [statusCommand, setupCommand, testCommand, doctorCommand],
  status: hindsightStatus,
  doctor: hindsightChecks,
  exportRecords: exportHindsightRecords,
  validateRecord: validateHindsightRecord,
  importRecords: importHindsightRecords,
});
