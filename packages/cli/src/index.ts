/**
 * @hermes-memory/cli — the `hermes-memory` command line. The binary is `dist/bin.js`; this entry
 * exposes the same CLI for embedding (run it in-process with your own IO) and its building blocks.
 */
export { runCli, COMMAND_TABLE, PROVIDER_ALIASES, mainHelp } from './cli';
export type { Command, CommandEntry } from './command';
export type { CommandContext } from './context';
export { CliError } from './errors';
export { type CliIO, processIO } from './io';
export { collectExport } from './commands/export';
export { importRecords } from './commands/import';
export { EXPORT_FORMAT, EXPORT_VERSION, type ExportRecord, readExport } from './portable';
export {
  discoverProviders,
  loadProvider,
  installedProviderPackages,
  type BrokenProvider,
  type DiscoveredProvider,
} from './providers';
export {
  providerCliContext,
  relevantProviderClis,
  requireProviderCli,
  type LoadedProviderCli,
} from './provider-seam';
export {
  answersFromFlags,
  fieldDefault,
  fieldVisible,
  providerHint,
  type SetupAnswers,
} from './setup/schema';
export { runSchemaWizard } from './setup/wizard';
export { type Prompter, CANCELLED } from './setup/prompter';
export { openManager, frozenSnapshot, type OpenedManager } from './runtime';
export { CLI_VERSION } from './version';
