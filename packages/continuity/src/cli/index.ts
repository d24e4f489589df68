/**
 * `@hermes-memory/continuity/cli`: the `hermes-memory continuity …` commands (ingest, review,
 * import, maintenance, explain) and the store's export/import, for the CLI's provider seam.
 */
export {
  type CliContext,
  CliUsageError,
  USAGE,
  runContinuityCli,
  openStore,
  ingestCommand,
  reviewCommand,
  importCommand,
  pruneCommand,
  dreamCommand,
  lifecycleCommand,
  deleteCommand,
  explainCommand,
} from './commands';
export { type ContinuityExportItem, type ImportItemsReport, exportItems, importItems } from './portable';
