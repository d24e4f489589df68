/**
 * `@hermes-memory/provider-template-local/cli` — the local store in the `hermes-memory` command line
 * (decision 0603): `hermes-memory template list | search`, its row in `status`, its `doctor` checks
 * (integrity with a `--fix` for a torn last line, 0600), and its part of `hermes-memory export` /
 * `import`. The manifest's `"localData": true` makes the CLI include it even when another provider
 * is active, so a backup never misses it. The CLI imports this module, never the provider's main entry.
 */
import { defineProviderCli } from '@hermes-memory/core';
import { listCommand, searchCommand } from './commands';
import { storeChecks, storeStatus } from './inspect';
import { exportTemplateRecords, importTemplateRecords, validateTemplateRecord } from './portable';

export default defineProviderCli({
  provider: 'template',
  summary: 'list and search the local template memory file',
  commands: [listCommand, searchCommand],
  status: storeStatus,
  doctor: storeChecks,
  exportRecords: exportTemplateRecords,
  validateRecord: validateTemplateRecord,
  importRecords: importTemplateRecords,
});
