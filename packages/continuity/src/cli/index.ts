/**
 * `@hermes-memory/continuity/cli` — continuity in the `hermes-memory` command line
 * (`hermes-memory continuity …`: ingest, review, import, maintenance, explain, search), its status
 * and doctor lines, and its part of `hermes-memory export` / `import` (decisions 0603, 0909).
 * Loaded by the CLI through the provider seam, never by the agent. The command functions and
 * `exportItems` / `importItems` stay exported for scripts.
 */
import { defineProviderCli } from '@hermes-memory/core';
import { continuityChecks, continuityStatus } from './inspect';
import { exportContinuityRecords, importContinuityRecords, validateContinuityRecord } from './portable';
import { CONTINUITY_COMMANDS } from './provider-commands';

export {
  type CliContext,
  deleteCommand,
  dreamCommand,
  explainCommand,
  importCommand,
  ingestCommand,
  lifecycleCommand,
  openStore,
  pruneCommand,
  reviewCommand,
  searchCommand,
} from './commands';
export { continuityDbPath } from './db-path';
export { type ContinuityExportItem, exportItems, type ImportItemsReport, importItems } from './portable';

export default defineProviderCli({
  provider: 'continuity',
  summary: 'ingest, review and import records; search, explain recall; prune, archive, restore',
  commands: CONTINUITY_COMMANDS,
  status: continuityStatus,
  doctor: continuityChecks,
  exportRecords: exportContinuityRecords,
  validateRecord: validateContinuityRecord,
  importRecords: importContinuityRecords,
});
