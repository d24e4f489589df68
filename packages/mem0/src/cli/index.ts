/**
 * `@hermes-memory/mem0/cli` — Mem0 in the `hermes-memory` command line (`hermes-memory mem0 …`:
 * test, search, list, add, delete), its status and doctor lines, the connection check after
 * `hermes-memory setup mem0`, and its part of `hermes-memory export` / `import` (decision 0603).
 * Loaded by the CLI through the provider seam, never by the agent.
 */
import { defineProviderCli } from '@hermes-memory/core';
import { MEM0_COMMANDS } from './commands';
import { mem0Checks, mem0PostSetup, mem0Status } from './inspect';
import { exportMem0Records, importMem0Records, validateMem0Record } from './portable';

export { mem0Checks, mem0ConfigFor, mem0Status } from './inspect';

export default defineProviderCli({
  provider: 'mem0',
  summary: 'test the connection; search, list, add and delete Mem0 memories',
  configPaths: ['memory.mem0'],
  commands: MEM0_COMMANDS,
  status: mem0Status,
  doctor: mem0Checks,
  exportRecords: exportMem0Records,
  validateRecord: validateMem0Record,
  importRecords: importMem0Records,
  postSetup: mem0PostSetup,
});
