/**
 * `@hermes-memory/hivemind/cli` — hivemind in the `hermes-memory` command line (`hermes-memory
 * hivemind setup|status|test|doctor|peers`), its status and doctor lines, and the connection
 * check after `hermes-memory setup hivemind` (decision 0603). Loaded by the CLI through the
 * provider seam, never by the agent. Nothing to export or import: the homeserver is the database
 * (peers, introductions, summaries and suggestions live there), so a backup is the homeserver's.
 */
import { defineProviderCli } from '@hermes-memory/core';
import { doctorCommand, peersCommand, statusCommand, testCommand } from './commands';
import { hivemindChecks, providerFor, statusDetails } from './inspect';
import { setupCommand } from './setup';

export { hivemindChecks, statusDetails } from './inspect';

export default defineProviderCli({
  provider: 'hivemind',
  summary: 'set up the Matrix account and the notebook; status, test, doctor, peers',
  configPaths: ['memory.hivemind'],
  commands: [setupCommand, statusCommand, testCommand, doctorCommand, peersCommand],
  status: (ctx) => ({ details: statusDetails(ctx) }),
  doctor: hivemindChecks,
  async postSetup(ctx) {
    const result = await providerFor(ctx).probe({ signal: ctx.signal });
    if (result.status !== 'ok') throw ctx.fail(`Hivemind connection test failed: ${result.message}`);
    ctx.out(`✓ ${result.message}`);
  },
});
