export type * from './types';
export { PROMPT_CANCELLED } from './types';
export {
  defineProviderCli,
  isProviderCliModule,
  loadProviderCli,
  type ProviderCliLoadResult,
  providerCliProblem,
} from './load';
export { formatBytes, formatTable, preview, visibleLength } from './format';
export {
  linkedFilesCheck,
  privateFilesCheck,
  type ReadonlySqlite,
  sqliteFiles,
  sqliteIntegrityCheck,
  sqliteSize,
} from './checks';
export { CliError, cliUsageError, parseCommandLine } from './args';
