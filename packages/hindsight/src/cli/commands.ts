/**
 * `hermes-memory hindsight …`: `status` (settings in use; `--probe` adds a connection test),
 * `setup` (merge settings into hindsight/config.json, the key into `.env`, test the connection,
 * then offer a starter bank template, as the reference's setup does), `test` (the connection test
 * alone; exit 1 when it fails) and `doctor` (this provider's checks).
 */
import {
  type ProviderCliContext,
  type ProviderCommand,
  parseBoolean,
  redactSecrets,
  writeEnvValues,
} from '@hermes-memory/core';
import {
  configToJson,
  profileConfigPath,
  readHindsightConfigSource,
  resolveHindsightConfig,
  saveHindsightConfig,
} from '../config';
import { cliSetup, testConnection } from './connection';
import { hindsightChecks } from './inspect';
import { offerTemplate } from './templates';

/** `setup` flags → config.json keys, with how each value is read. */
const SETUP_FLAGS = {
  mode: { key: 'mode', kind: 'mode' },
  'api-url': { key: 'api_url', kind: 'string' },
  'bank-id': { key: 'bank_id', kind: 'string' },
  'bank-id-template': { key: 'bank_id_template', kind: 'string' },
  'bank-mission': { key: 'bank_mission', kind: 'string' },
  'recall-budget': { key: 'recall_budget', kind: 'budget' },
  'memory-mode': { key: 'memory_mode', kind: 'memory-mode' },
  'prefetch-method': { key: 'recall_prefetch_method', kind: 'method' },
  'retain-tags': { key: 'retain_tags', kind: 'string' },
  'retain-every-n-turns': { key: 'retain_every_n_turns', kind: 'integer' },
  'auto-recall': { key: 'auto_recall', kind: 'boolean' },
  'auto-retain': { key: 'auto_retain', kind: 'boolean' },
  'recall-sync': { key: 'recall_sync', kind: 'boolean' },
  'retain-async': { key: 'retain_async', kind: 'boolean' },
  timeout: { key: 'timeout', kind: 'integer' },
} as const;

const CHOICES: Record<string, readonly string[]> = {
  mode: ['cloud', 'local_external'],
  budget: ['low', 'mid', 'high'],
  'memory-mode': ['hybrid', 'context', 'tools'],
  method: ['recall', 'reflect'],
};

export const statusCommand: ProviderCommand = {
  name: 'status',
  summary: 'settings in use; --probe adds a connection test (version and memory count)',
  usage: 'hermes-memory hindsight status [--probe] [--json]',
  async run(ctx, argv) {
    const { values } = ctx.parseArgs(argv, { probe: { type: 'boolean' } });
    const setup = cliSetup(ctx);
    const report = values.probe === true ? await testConnection(ctx, setup) : undefined;
    // A password or token the user wrote into the URL is never shown (the request refuses it anyway).
    const apiURL = setup.config.apiURL && redactSecrets(setup.config.apiURL);
    const settings = {
      ...configToJson(setup.config),
      ...(apiURL ? { api_url: apiURL } : {}),
      bank: setup.bankId,
      api_key: setup.config.apiKey ? 'set' : 'missing',
      settings_from: setup.config.source,
    };
    if (ctx.json) {
      ctx.printJson({ provider: 'hindsight', settings, ...(report ? { connection: report } : {}) });
      return report && !report.ok ? 1 : 0;
    }
    ctx.out(ctx.style.bold('Hindsight'));
    ctx.out(`  mode:         ${setup.config.mode}`);
    ctx.out(`  api url:      ${apiURL}`);
    ctx.out(`  api key:      ${settings.api_key}`);
    ctx.out(`  bank:         ${setup.bankId}`);
    ctx.out(`  memory mode:  ${setup.config.memoryMode} (budget ${setup.config.recallBudget})`);
    ctx.out(
      `  settings:     ${setup.config.source === 'env' ? 'environment' : `${setup.config.source} config.json`}`,
    );
    ctx.out(`  config file:  ${profileConfigPath(ctx.home)}`);
    if (report) ctx.out(report.ok ? ctx.style.green(report.summary) : ctx.style.red(report.summary));
    return report && !report.ok ? 1 : 0;
  },
};

const SETUP_USAGE =
  'hermes-memory hindsight setup [--mode cloud|local_external] [--api-url URL] [--api-key KEY] [--bank-id B] [--bank-id-template T] [--bank-mission TEXT] [--recall-budget low|mid|high] [--memory-mode hybrid|context|tools] [--prefetch-method recall|reflect] [--retain-tags a,b] [--retain-every-n-turns N] [--auto-recall on|off] [--auto-retain on|off] [--recall-sync on|off] [--retain-async on|off] [--timeout S] [--template ID|blank [--overwrite]] [--no-template] [--no-test]';

export const setupCommand: ProviderCommand = {
  name: 'setup',
  summary:
    'write hindsight/config.json (merged, 0600), the key to .env, test the connection, offer a starter bank template',
  usage: SETUP_USAGE,
  run: runSetup,
};

async function runSetup(ctx: ProviderCliContext, argv: readonly string[]): Promise<number> {
  const options = Object.fromEntries(
    Object.keys(SETUP_FLAGS).map((flag) => [flag, { type: 'string' as const }]),
  );
  const { values, positionals } = ctx.parseArgs(argv, {
    ...options,
    'api-key': { type: 'string' },
    'no-test': { type: 'boolean' },
    template: { type: 'string' },
    overwrite: { type: 'boolean' },
    'no-template': { type: 'boolean' },
  });
  if (positionals.length > 0) throw ctx.usageError(`unexpected argument '${positionals[0]}'`, SETUP_USAGE);
  if (values.template !== undefined && values['no-template'] === true)
    throw ctx.usageError('--template and --no-template exclude each other', SETUP_USAGE);
  const patch: Record<string, unknown> = {};
  for (const [flag, { key, kind }] of Object.entries(SETUP_FLAGS)) {
    const raw = (values as Record<string, string | undefined>)[flag];
    if (raw !== undefined) patch[key] = parseFlag(ctx, flag, kind, raw);
  }
  // A self-hosted server defaults to localhost:8888, as the reference's setup offers.
  if (patch.mode === 'local_external' && patch.api_url === undefined) patch.api_url = 'http://localhost:8888';
  const source = readHindsightConfigSource(ctx.home, ctx.env);
  const current = source.source === 'profile' ? source.file : {};
  const resolved = resolveHindsightConfig(
    {},
    { file: { ...current, ...patch }, source: 'profile', env: ctx.env },
  );
  const written = saveHindsightConfig(ctx.home, { ...configToJson(resolved), ...patch });
  // The key and the timeout go to .env as the reference writes them (the key never to config.json).
  const key = typeof values['api-key'] === 'string' ? values['api-key'].trim() : '';
  writeEnvValues(ctx.home, {
    ...(key ? { HINDSIGHT_API_KEY: key } : {}),
    HINDSIGHT_TIMEOUT: String(resolved.timeout),
  });
  const file = profileConfigPath(ctx.home);
  const setup = cliSetup(ctx, key ? { HINDSIGHT_API_KEY: key } : {});
  const report = values['no-test'] === true ? undefined : await testConnection(ctx, setup);
  if (!ctx.json) {
    ctx.out(`Wrote ${file}`);
    if (report) ctx.out(report.ok ? ctx.style.green(report.summary) : ctx.style.red(report.summary));
  }
  // The starter template: asked for by flag, or offered when questions are allowed and the service answered.
  const template = await offerTemplate(ctx, setup, {
    ...(values.template !== undefined ? { flag: values.template } : {}),
    overwrite: values.overwrite === true,
    offer: !ctx.json && values['no-template'] !== true && report?.ok !== false,
  });
  if (ctx.json)
    ctx.printJson({
      written: file,
      settings: written,
      ...(report ? { connection: report } : {}),
      ...(template ? { template } : {}),
    });
  return 0;
}

export const testCommand: ProviderCommand = {
  name: 'test',
  summary: 'test the connection (version and the bank’s memory count); exit 1 when it fails',
  usage: 'hermes-memory hindsight test [--json]',
  async run(ctx, argv) {
    ctx.parseArgs(argv, {});
    const report = await testConnection(ctx, cliSetup(ctx));
    if (ctx.json) ctx.printJson(report);
    else ctx.out(report.ok ? ctx.style.green(report.summary) : ctx.style.red(report.summary));
    return report.ok ? 0 : 1;
  },
};

export const doctorCommand: ProviderCommand = {
  name: 'doctor',
  summary: 'check settings, config.json and the connection; exit 1 when a check fails',
  usage: 'hermes-memory hindsight doctor [--json]',
  async run(ctx, argv) {
    ctx.parseArgs(argv, {});
    const checks = await hindsightChecks(ctx);
    const failed = checks.some((c) => c.status === 'fail');
    if (ctx.json) {
      ctx.printJson(checks.map(({ repair: _repair, ...check }) => check));
      return failed ? 1 : 0;
    }
    for (const check of checks) {
      const mark =
        check.status === 'ok'
          ? ctx.style.green('✓')
          : check.status === 'warn'
            ? ctx.style.yellow('!')
            : ctx.style.red('✗');
      ctx.out(`${mark} ${check.title}: ${check.detail}`);
      if (check.fix && check.status !== 'ok') ctx.out(`    fix: ${check.fix}`);
    }
    return failed ? 1 : 0;
  },
};

function parseFlag(ctx: ProviderCliContext, flag: string, kind: string, raw: string): unknown {
  if (kind === 'boolean') {
    const value = parseBoolean(raw);
    if (value === undefined)
      throw ctx.usageError(`--${flag} takes on/off, yes/no, true/false or 1/0, got '${raw}'`);
    return value;
  }
  if (kind === 'integer') {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1)
      throw ctx.usageError(`--${flag} takes a positive integer, got '${raw}'`);
    return value;
  }
  const choices = CHOICES[kind];
  if (choices && !choices.includes(raw))
    throw ctx.usageError(`--${flag} takes one of ${choices.join(', ')}, got '${raw}'`);
  return raw;
}
