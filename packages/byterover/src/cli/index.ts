/**
 * `@hermes-memory/byterover/cli` — the provider in the `hermes-memory` command line, through the
 * provider seam (decision 0603): its lines in `status` (which brv, the context tree) and `doctor`
 * (brv installed, the project directory writable), a connection test (`hermes-memory byterover
 * test`: one `brv status`), `hermes-memory byterover status [--probe]`, and the same test after
 * `hermes-memory setup byterover`.
 */
import { defineProviderCli, type ProviderCommand } from '@hermes-memory/core';
import { byteroverChecks, byteroverStatus } from './inspect';
import { providerForHome } from './settings';

async function probe(ctx: Parameters<ProviderCommand['run']>[0]) {
  const resolved = providerForHome(ctx);
  if ('problem' in resolved) return { status: 'failed' as const, message: resolved.problem };
  return resolved.provider.probe({ signal: ctx.signal });
}

const testCommand: ProviderCommand = {
  name: 'test',
  summary: 'run `brv status` once and say whether brv answered',
  usage: `Usage: hermes-memory byterover test [--json]

Run \`brv status\` in the provider's project directory, with the environment the provider gives
brv (memory.byterover in config.yaml, $HERMES_HOME/.env), and say whether it answered, how fast,
or why not. Exits 1 when it did not. The API key is never printed.`,
  async run(ctx, argv) {
    ctx.parseArgs(argv, {});
    const result = await probe(ctx);
    if (ctx.json) ctx.printJson(result);
    else if (result.status === 'ok')
      ctx.out(`${ctx.style.green('✓')} ${result.message}${ctx.style.gray(` ${result.latencyMs ?? '?'} ms`)}`);
    else ctx.out(`${ctx.style.red('✗')} brv did not answer: ${result.message}`);
    return result.status === 'ok' ? 0 : 1;
  },
};

const statusCommand: ProviderCommand = {
  name: 'status',
  summary: 'which brv, the context tree and the settings; --probe also runs `brv status`',
  usage: `Usage: hermes-memory byterover status [--probe] [--json]

Show the brv executable the provider resolves, the context tree's directory and size, and the
settings that matter. With --probe, also run \`brv status\` once (exit 1 when it fails).`,
  async run(ctx, argv) {
    const { values } = ctx.parseArgs(argv, { probe: { type: 'boolean' } });
    const report = byteroverStatus(ctx);
    const probed = values.probe ? await probe(ctx) : undefined;
    if (ctx.json) ctx.printJson({ ...report, ...(probed ? { probe: probed } : {}) });
    else {
      for (const [key, value] of Object.entries(report.details ?? {})) ctx.out(`${key}: ${String(value)}`);
      for (const store of report.stores ?? [])
        ctx.out(`context tree: ${store.path} ${store.exists ? `(${store.detail})` : '(not created yet)'}`);
      if (probed)
        ctx.out(
          probed.status === 'ok'
            ? `${ctx.style.green('✓')} ${probed.message}`
            : `${ctx.style.red('✗')} brv did not answer: ${probed.message}`,
        );
    }
    return probed && probed.status !== 'ok' ? 1 : 0;
  },
};

export default defineProviderCli({
  provider: 'byterover',
  summary: 'ByteRover (the brv CLI): test brv, show the context tree',
  commands: [testCommand, statusCommand],
  status: byteroverStatus,
  doctor: byteroverChecks,
  // After `hermes-memory setup byterover` saved the settings: the same test.
  async postSetup(ctx, _saved) {
    const result = await probe(ctx);
    if (result.status !== 'ok')
      throw ctx.fail(
        `The settings are saved, but brv did not answer: ${result.message}`,
        "Check with 'hermes-memory byterover test'.",
      );
    ctx.out(`${ctx.style.green('✓')} ${result.message} Start a new session to use it.`);
  },
});
