/**
 * `hermes-memory supermemory …`: `status` (settings and a connection test), `setup` (merge
 * settings into supermemory.json, then test the connection, as the reference's setup does) and
 * `test` (the connection test alone; exit 1 when it fails).
 */
import path from 'node:path';
import {
  type ProviderCliContext,
  type ProviderCommand,
  parseBoolean,
  redactSecrets,
} from '@hermes-memory/core';
import {
  CONFIG_FILE,
  configToJson,
  readSupermemoryJson,
  resolveSupermemoryConfig,
  saveSupermemoryJson,
} from '../config';
import { cliSetup, testConnection } from './connection';

/** `setup` flags → supermemory.json keys, with how each value is read. */
const SETUP_FLAGS = {
  'container-tag': { key: 'container_tag', kind: 'string' },
  'auto-recall': { key: 'auto_recall', kind: 'boolean' },
  'auto-capture': { key: 'auto_capture', kind: 'boolean' },
  'max-recall-results': { key: 'max_recall_results', kind: 'number' },
  'profile-frequency': { key: 'profile_frequency', kind: 'number' },
  'search-mode': { key: 'search_mode', kind: 'string' },
  'api-timeout': { key: 'api_timeout', kind: 'number' },
  'base-url': { key: 'base_url', kind: 'string' },
  'entity-context': { key: 'entity_context', kind: 'string' },
  'enable-custom-container-tags': { key: 'enable_custom_container_tags', kind: 'boolean' },
  'custom-containers': { key: 'custom_containers', kind: 'list' },
  'custom-container-instructions': { key: 'custom_container_instructions', kind: 'string' },
} as const;

export const statusCommand: ProviderCommand = {
  name: 'status',
  summary: 'settings in use and a connection test (one profile call)',
  usage: 'hermes-memory supermemory status [--json]',
  async run(ctx) {
    ctx.parseArgs([], {});
    const setup = cliSetup(ctx);
    const report = await testConnection(ctx, setup);
    // A password or token the user wrote into the URL is never shown (the request refuses it anyway).
    const baseURL = redactSecrets(setup.config.baseURL);
    const settings = {
      ...configToJson(setup.config),
      ...(setup.config.baseURL !== baseURL ? { base_url: baseURL } : {}),
      container: setup.containerTag,
      api_key: setup.config.apiKey ? 'set' : 'missing',
    };
    if (ctx.json) {
      ctx.printJson({ provider: 'supermemory', settings, connection: report });
      return report.ok ? 0 : 1;
    }
    ctx.out(ctx.style.bold('Supermemory'));
    ctx.out(`  container:    ${setup.containerTag}`);
    ctx.out(`  base url:     ${baseURL}`);
    ctx.out(`  api key:      ${settings.api_key}`);
    ctx.out(`  search mode:  ${setup.config.searchMode}`);
    ctx.out(`  config file:  ${path.join(ctx.home, CONFIG_FILE)}`);
    ctx.out(report.ok ? ctx.style.green(report.summary) : ctx.style.red(report.summary));
    return report.ok ? 0 : 1;
  },
};

export const setupCommand: ProviderCommand = {
  name: 'setup',
  summary: 'write supermemory.json (merged, 0600) and test the connection',
  usage:
    'hermes-memory supermemory setup [--container-tag T] [--auto-recall on|off] [--auto-capture on|off] [--max-recall-results N] [--profile-frequency N] [--search-mode hybrid|memories|documents] [--api-timeout S] [--base-url URL] [--entity-context TEXT] [--enable-custom-container-tags on|off] [--custom-containers a,b] [--custom-container-instructions TEXT] [--no-test]',
  async run(ctx, argv) {
    const options = Object.fromEntries(
      Object.keys(SETUP_FLAGS).map((flag) => [flag, { type: 'string' as const }]),
    );
    const { values, positionals } = ctx.parseArgs(argv, { ...options, 'no-test': { type: 'boolean' } });
    if (positionals.length > 0)
      throw ctx.usageError(`unexpected argument '${positionals[0]}'`, setupCommand.usage);
    const patch: Record<string, unknown> = {};
    for (const [flag, { key, kind }] of Object.entries(SETUP_FLAGS)) {
      const raw = (values as Record<string, string | undefined>)[flag];
      if (raw === undefined) continue;
      patch[key] = parseFlag(ctx, flag, kind, raw);
    }
    // Every setting is written, so the file shows what is in use; keys already there are merged.
    const resolved = resolveSupermemoryConfig({}, { file: { ...readSupermemoryJson(ctx.home), ...patch } });
    const written = saveSupermemoryJson(ctx.home, { ...configToJson(resolved), ...patch });
    const file = path.join(ctx.home, CONFIG_FILE);
    if (values['no-test'] === true) {
      if (ctx.json) ctx.printJson({ written: file, settings: written });
      else ctx.out(`Wrote ${file}`);
      return 0;
    }
    const report = await testConnection(ctx, cliSetup(ctx));
    if (ctx.json) {
      ctx.printJson({ written: file, settings: written, connection: report });
    } else {
      ctx.out(`Wrote ${file}`);
      ctx.out(report.ok ? ctx.style.green(report.summary) : ctx.style.red(report.summary));
    }
    return 0;
  },
};

export const testCommand: ProviderCommand = {
  name: 'test',
  summary: 'test the connection (one profile call); exit 1 when it fails',
  usage: 'hermes-memory supermemory test [--json]',
  async run(ctx) {
    ctx.parseArgs([], {});
    const report = await testConnection(ctx, cliSetup(ctx));
    if (ctx.json) ctx.printJson(report);
    else ctx.out(report.ok ? ctx.style.green(report.summary) : ctx.style.red(report.summary));
    return report.ok ? 0 : 1;
  },
};

function parseFlag(ctx: ProviderCliContext, flag: string, kind: string, raw: string): unknown {
  if (kind === 'boolean') {
    const value = parseBoolean(raw);
    if (value === undefined)
      throw ctx.usageError(`--${flag} takes on/off, yes/no, true/false or 1/0, got '${raw}'`);
    return value;
  }
  if (kind === 'number') {
    const value = Number(raw);
    if (!Number.isFinite(value)) throw ctx.usageError(`--${flag} takes a number, got '${raw}'`);
    return value;
  }
  if (kind === 'list')
    return raw
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  return raw;
}
