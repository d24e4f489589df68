/** `hermes-memory hivemind status|test|doctor|peers`. */
import {
  formatTable,
  type ProbeResult,
  type ProviderCheck,
  type ProviderCliContext,
  type ProviderCommand,
} from '@hermes-memory/core';
import type { Peer } from '../peers';
import { hivemindChecks, providerFor, statusDetails } from './inspect';

const SETUP_HINT = "Run 'hermes-memory hivemind setup'.";

function mark(ctx: ProviderCliContext, status: string): string {
  if (status === 'ok') return ctx.style.green('ok');
  if (status === 'failed' || status === 'fail' || status === 'down') return ctx.style.red(status);
  return ctx.style.yellow(status);
}

/** The Matrix and notebook probes, each reported on its own (a command shows both). */
async function probeBoth(ctx: ProviderCliContext): Promise<{ matrix: ProbeResult; notebook: ProbeResult }> {
  const provider = providerFor(ctx);
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(15_000)]);
  return {
    matrix: await provider.probeMatrix({ signal }),
    notebook: await provider.probeNotebook({ signal }),
  };
}

const failed = (r: { matrix: ProbeResult; notebook: ProbeResult }) =>
  r.matrix.status === 'failed' || r.notebook.status === 'failed';

export const statusCommand: ProviderCommand = {
  name: 'status',
  summary: 'the settings in force and, with --probe, whether the homeserver and notebook answer',
  usage:
    'Usage: hermes-memory hivemind status [--probe] [--json]\n\n' +
    'Shows the Matrix account, the notebook and where hivemind runs (memory.provider or\n' +
    'memory.secondary). Nothing is contacted unless --probe runs the connection test.',
  async run(ctx, argv) {
    const { values } = ctx.parseArgs(argv, { probe: { type: 'boolean' } });
    const details = statusDetails(ctx);
    const probes = values.probe ? await probeBoth(ctx) : undefined;
    if (ctx.json) {
      ctx.printJson({ provider: 'hivemind', details, ...(probes ? { probes } : {}) });
    } else {
      ctx.out(`Hivemind (${details.role})`);
      for (const [key, value] of Object.entries(details)) {
        if (key !== 'role') ctx.out(`  ${key.padEnd(10)}${value}`);
      }
      if (probes) {
        for (const [name, result] of Object.entries(probes))
          ctx.out(`  ${name.padEnd(10)}${mark(ctx, result.status)} — ${result.message}`);
      } else ctx.out(ctx.style.dim('  (not contacted; --probe tests the connection)'));
    }
    return probes && failed(probes) ? 1 : 0;
  },
};

export const testCommand: ProviderCommand = {
  name: 'test',
  summary: 'check the homeserver (whoami with the token) and the notebook (one search)',
  usage: 'Usage: hermes-memory hivemind test [--json]',
  async run(ctx, argv) {
    ctx.parseArgs(argv, {});
    const provider = providerFor(ctx);
    if (!provider.isAvailable()) throw ctx.fail(provider.unavailableReason(), SETUP_HINT);
    const probes = await probeBoth(ctx);
    if (ctx.json) ctx.printJson(probes);
    else
      for (const result of Object.values(probes)) {
        if (result.status === 'skipped') ctx.out(ctx.style.dim(`- ${result.message}`));
        else if (result.status === 'ok')
          ctx.out(
            `${ctx.style.green('✓')} ${result.message}${result.latencyMs !== undefined ? ` (${result.latencyMs} ms)` : ''}`,
          );
        else ctx.err(`${ctx.style.red('✗')} ${result.message}`);
      }
    return failed(probes) ? 1 : 0;
  },
};

export const doctorCommand: ProviderCommand = {
  name: 'doctor',
  summary: "hivemind's checks (settings, secrets, permissions, role); --probe adds the connection test",
  usage: 'Usage: hermes-memory hivemind doctor [--probe] [--json]',
  async run(ctx, argv) {
    const { values } = ctx.parseArgs(argv, { probe: { type: 'boolean' } });
    const checks: ProviderCheck[] = hivemindChecks(ctx);
    if (values.probe && providerFor(ctx).isAvailable()) {
      const probes = await probeBoth(ctx);
      for (const [name, result] of Object.entries(probes)) {
        if (result.status === 'skipped') continue;
        checks.push({
          id: `probe-${name}`,
          title: name === 'matrix' ? 'Homeserver answers' : 'Notebook answers',
          status: result.status === 'ok' ? 'ok' : 'fail',
          detail: result.message,
          ...(result.status === 'ok' ? {} : { fix: 'hermes-memory hivemind setup (or check the server)' }),
        });
      }
    }
    if (ctx.json) ctx.printJson({ checks: checks.map(({ repair: _r, ...c }) => c) });
    else
      for (const c of checks) {
        ctx.out(`${mark(ctx, c.status)}  ${c.title}: ${c.detail}`);
        if (c.fix && c.status !== 'ok' && c.status !== 'skip') ctx.out(ctx.style.dim(`      fix: ${c.fix}`));
      }
    return checks.some((c) => c.status === 'fail') ? 1 : 0;
  },
};

export const peersCommand: ProviderCommand = {
  name: 'peers',
  summary: 'the peers this agent knows (as hivemind_list_peers shows them); --json exports them',
  usage:
    'Usage: hermes-memory hivemind peers [--json]\n\n' +
    'Syncs once as the agent does (pending introductions are joined) and lists each peer: name,\n' +
    'id, who introduced you, what you were told. The homeserver keeps them; --json prints them\n' +
    'with the pending introduction suggestions.',
  async run(ctx, argv) {
    ctx.parseArgs(argv, {});
    const provider = providerFor(ctx);
    if (!provider.isAvailable()) throw ctx.fail(provider.unavailableReason(), SETUP_HINT);
    await provider.initialize('hermes-memory-cli', {
      hermesHome: ctx.home,
      platform: 'cli',
      agentContext: 'primary',
      env: ctx.env,
      providerConfig: ctx.providerConfig,
      logger: ctx.logger,
    });
    try {
      const answer = JSON.parse(
        await provider.handleToolCall('hivemind_list_peers', {}, { signal: ctx.signal }),
      ) as { success: boolean; error?: string; peers?: Peer[]; suggestions?: unknown[] };
      if (!answer.success) throw ctx.fail(answer.error ?? 'The peers could not be listed.');
      const peers = answer.peers ?? [];
      if (ctx.json) ctx.printJson({ count: peers.length, peers, suggestions: answer.suggestions ?? [] });
      else if (peers.length === 0) ctx.out('No peers yet: someone has to introduce this agent to another.');
      else
        ctx.out(
          formatTable([
            ['name', 'id', 'introduced by', 'since', 'context'],
            ...peers.map((p) => [
              p.name,
              p.id,
              p.introduced_by,
              p.introduced_at.slice(0, 10),
              oneLine(p.context, 60),
            ]),
          ]),
        );
      return 0;
    } finally {
      await provider.shutdown();
    }
  },
};

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
