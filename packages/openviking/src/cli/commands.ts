import fs from 'node:fs';
import path from 'node:path';
import {
  type ProviderCliContext,
  type ProviderCommand,
  saveConfigValues,
  writeEnvValues,
} from '@hermes-memory/core';
import { checkEndpoint } from '../endpoint';
import { identityProblem } from '../openviking-settings';
import { defaultOvcliPath, discoverOvcliProfiles, readOvcliProfile } from '../ovcli';
import { envLineSafe, linkOvcliProfile, saveOpenvikingConfig } from '../setup-config';
import { type ConnectionTest, testConnection } from './connection';
import { openvikingChecks, openvikingStatus } from './inspect';
import { runSetupWizard, type SetupWizardOptions } from './setup-wizard';

function printTest(ctx: ProviderCliContext, result: ConnectionTest): void {
  const latency = result.latencyMs !== undefined ? ctx.style.gray(` ${result.latencyMs} ms`) : '';
  if (result.status === 'ok') {
    ctx.out(`${ctx.style.green('✓')} ${result.message}${latency}`);
    if (result.keyRole) ctx.out(`  key: ${result.keyRole} key`);
  } else ctx.out(`${ctx.style.red('✗')} ${result.message}`);
}

export const statusCommand: ProviderCommand = {
  name: 'status',
  summary: 'settings in force and pending sessions (--probe: test the connection)',
  usage:
    'Usage: hermes-memory openviking status [--probe]\n\nNo network unless --probe runs the connection test.',
  async run(ctx, argv) {
    const { values } = ctx.parseArgs(argv, { probe: { type: 'boolean' } });
    const report = openvikingStatus(ctx);
    const probe = values.probe ? await testConnection(ctx) : undefined;
    if (ctx.json)
      ctx.printJson({ provider: 'openviking', details: report.details, ...(probe ? { probe } : {}) });
    else {
      ctx.out('OpenViking');
      for (const [key, value] of Object.entries(report.details ?? {})) ctx.out(`  ${key.padEnd(18)}${value}`);
      if (probe) printTest(ctx, probe);
    }
    return probe && probe.status !== 'ok' ? 1 : 0;
  },
};

export const testCommand: ProviderCommand = {
  name: 'test',
  summary: 'test the connection: identity probe, status, key role',
  usage:
    'Usage: hermes-memory openviking test\n\nExits 1 when the server did not answer as a healthy OpenViking. The key is never printed.',
  async run(ctx, argv) {
    ctx.parseArgs(argv, {});
    const result = await testConnection(ctx);
    if (ctx.json) ctx.printJson(result);
    else printTest(ctx, result);
    return result.status === 'ok' ? 0 : 1;
  },
};

export const doctorCommand: ProviderCommand = {
  name: 'doctor',
  summary: 'check settings, orphaned sessions and state folders',
  usage: 'Usage: hermes-memory openviking doctor',
  async run(ctx, argv) {
    ctx.parseArgs(argv, {});
    const checks = await openvikingChecks(ctx);
    if (ctx.json) ctx.printJson({ checks: checks.map(({ repair: _r, ...c }) => c) });
    else
      for (const c of checks) {
        const mark =
          c.status === 'ok'
            ? ctx.style.green('ok  ')
            : c.status === 'warn'
              ? ctx.style.yellow('warn')
              : c.status === 'fail'
                ? ctx.style.red('fail')
                : ctx.style.gray(c.status);
        ctx.out(`${mark} ${c.title}: ${c.detail}`);
        if (c.fix && c.status !== 'ok') ctx.out(`     fix: ${c.fix}`);
      }
    return checks.some((c) => c.status === 'fail') ? 1 : 0;
  },
};

/**
 * The reference's setup. Without flags, on a terminal (or with a front end's prompter), the
 * interactive wizard (`setup-wizard.ts`). With flags, no questions: link an OpenViking CLI
 * profile (`--profile <name|path>`, stale `OPENVIKING_*` lines removed from `.env`) or save an
 * endpoint, tenant and peer (`--endpoint`, `--account`, `--user`, `--agent`), the key only ever to
 * `.env` (`--api-key-env` names a variable to copy it from, so it never appears in argv).
 */
export function createSetupCommand(options: SetupWizardOptions = {}): ProviderCommand {
  return {
    name: 'setup',
    summary: 'the setup wizard, or link an OpenViking CLI profile / save an endpoint by flags',
    usage: `Usage: hermes-memory openviking setup                 (interactive wizard)
       hermes-memory openviking setup --profile <name|path>
       hermes-memory openviking setup --endpoint <url> [--api-key-env VAR] [--account A] [--user U] [--agent P]
       hermes-memory openviking setup --list-profiles`,
    async run(ctx, argv) {
      const { values } = ctx.parseArgs(argv, {
        profile: { type: 'string' },
        endpoint: { type: 'string' },
        'api-key-env': { type: 'string' },
        account: { type: 'string' },
        user: { type: 'string' },
        agent: { type: 'string' },
        'list-profiles': { type: 'boolean' },
      });
      const profiles = () =>
        discoverOvcliProfiles(ctx.env, (file, reason) =>
          ctx.logger.warn(`Skipping invalid OpenViking CLI config ${file}: ${reason}`),
        );
      if (values['list-profiles']) {
        const found = profiles().map(({ name, source, path: file, active }) => ({
          name,
          source,
          path: file,
          active,
        }));
        if (ctx.json) ctx.printJson({ profiles: found });
        else if (found.length === 0)
          ctx.out(`No OpenViking CLI profiles under ${path.dirname(defaultOvcliPath(ctx.env))}.`);
        else for (const p of found) ctx.out(`${p.active ? '*' : ' '} ${p.name.padEnd(16)}${p.path}`);
        return 0;
      }
      if (values.profile && values.endpoint) throw ctx.usageError('Give --profile or --endpoint, not both.');
      if (values.profile) {
        const named = profiles().find((p) => p.name === values.profile);
        const file = named?.path ?? path.resolve(values.profile);
        if (!fs.existsSync(file) || !readOvcliProfile(file))
          throw ctx.fail(`No readable OpenViking CLI profile at ${file}.`);
        linkOvcliProfile(ctx.home, ctx.env, file, ctx.logger);
        ctx.out(`Linked the OpenViking CLI profile ${file}.`);
        return 0;
      }
      if (!values.endpoint) {
        if (ctx.prompter && !ctx.json) return runSetupWizard(ctx, ctx.prompter, options);
        throw ctx.usageError(
          'Give --endpoint <url> or --profile <name|path>, or run it on a terminal for the wizard.',
          'hermes-memory openviking setup --help',
        );
      }
      const checked = checkEndpoint(values.endpoint);
      if (!checked.ok) throw ctx.usageError(checked.reason);
      for (const field of ['account', 'user', 'agent'] as const) {
        const value = values[field];
        const problem = value !== undefined ? identityProblem(field, value) : null;
        if (problem) throw ctx.usageError(problem);
      }
      const patch: Record<string, unknown> = { endpoint: checked.endpoint };
      for (const field of ['account', 'user', 'agent'] as const)
        if (values[field] !== undefined) patch[field] = values[field];
      saveConfigValues(ctx.home, { 'memory.provider': 'openviking' });
      saveOpenvikingConfig(ctx.home, patch);
      const keyVar = values['api-key-env'];
      if (keyVar) {
        const key = ctx.env[keyVar];
        if (!key) throw ctx.fail(`The variable ${keyVar} is not set; the key was not saved.`);
        writeEnvValues(ctx.home, { OPENVIKING_API_KEY: envLineSafe(key) }, { logger: ctx.logger });
      }
      ctx.out(`Saved endpoint ${checked.endpoint}${keyVar ? ' (key in .env)' : ''}.`);
      return 0;
    },
  };
}

export const setupCommand: ProviderCommand = createSetupCommand();
