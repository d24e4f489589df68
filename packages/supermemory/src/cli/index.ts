/**
 * `@hermes-memory/supermemory/cli` — Supermemory in the `hermes-memory` command line
 * (`hermes-memory supermemory status | setup | test`), its status and doctor lines, and its part of
 * `hermes-memory export` / `import` (decisions 0601, 0603). Loaded by the CLI through the provider
 * seam, never by the agent.
 */
import { defineProviderCli } from '@hermes-memory/core';
import { setupCommand, statusCommand, testCommand } from './commands';
import { supermemoryChecks, supermemoryStatus } from './inspect';
import { exportSupermemoryRecords, importSupermemoryRecords, validateSupermemoryRecord } from './portable';

export { type ConnectionReport, profileName, testConnection } from './connection';

export default defineProviderCli({
  provider: 'supermemory',
  summary: 'settings, connection test, setup of supermemory.json; export/import of its documents',
  configPaths: ['memory.supermemory'],
  commands: [statusCommand, setupCommand, testCommand],
  status: supermemoryStatus,
  doctor: supermemoryChecks,
  exportRecords: exportSupermemoryRecords,
  validateRecord: validateSupermemoryRecord,
  importRecords: importSupermemoryRecords,
});
