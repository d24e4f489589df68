/**
 * `@hermes-memory/holographic/cli` — the fact store in the `hermes-memory` command line
 * (`hermes-memory holographic …`), its status and doctor lines, and its part of
 * `hermes-memory export` / `import`. Loaded by the CLI through the provider seam (decision 0603),
 * never by the agent.
 */
import { defineProviderCli } from '@hermes-memory/core';
import { HOLOGRAPHIC_CONFIG_PATHS } from '../config-schema';
import { addCommand, feedbackCommand, listCommand, probeCommand, searchCommand } from './fact-commands';
import { factStoreChecks, factStoreStatus } from './inspect';
import { embedCommand, reindexCommand } from './maintenance-commands';
import { exportFactRecords, importFactRecords, validateFactRecord } from './portable';

export { factsDbPath } from './db-path';
export { FACT_TABLES } from './portable';

export default defineProviderCli({
  provider: 'holographic',
  summary: 'add, search, probe, rate and list holographic facts; reindex, embed',
  configPaths: HOLOGRAPHIC_CONFIG_PATHS,
  commands: [
    addCommand,
    searchCommand,
    probeCommand,
    feedbackCommand,
    listCommand,
    reindexCommand,
    embedCommand,
  ],
  status: factStoreStatus,
  doctor: factStoreChecks,
  exportRecords: exportFactRecords,
  validateRecord: validateFactRecord,
  importRecords: importFactRecords,
});
