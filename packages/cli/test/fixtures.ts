import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll } from 'vitest';

const CORE_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../core/dist/index.js');

/**
 * Acme's CLI module (decision 0603): notes kept in `<home>/acme-notes.json`, two commands, a status
 * store and detail, a doctor check, export/import records (one refused on purpose), a post-setup
 * step that can fail. A remote-style provider: no `localData`. Each import of the module is
 * appended to $ACME_CLI_IMPORTS, so tests see when the CLI loads it.
 */
const ACME_CLI = `import fs from 'node:fs';
import path from 'node:path';
if (process.env.ACME_CLI_IMPORTS) fs.appendFileSync(process.env.ACME_CLI_IMPORTS, 'imported\\n');
const file = (ctx) => path.join(ctx.home, 'acme-notes.json');
const read = (ctx) => { try { return JSON.parse(fs.readFileSync(file(ctx), 'utf8')); } catch { return []; } };
const write = (ctx, notes) => fs.writeFileSync(file(ctx), JSON.stringify(notes), { mode: 0o600 });
export default {
  provider: 'acme',
  summary: 'Acme notes',
  commands: [
    { name: 'note', summary: 'add a note', usage: 'Usage: hermes-memory acme note <text>',
      async run(ctx, argv) {
        const { positionals } = ctx.parseArgs(argv, {});
        if (positionals.length !== 1) throw ctx.usageError("'note' takes one <text>.");
        const notes = read(ctx); notes.push(positionals[0]); write(ctx, notes);
        if (ctx.json) ctx.printJson({ count: notes.length }); else ctx.out('noted');
        return 0;
      } },
    { name: 'ask', summary: 'ask a question when a prompter is there', usage: 'Usage: hermes-memory acme ask',
      async run(ctx) {
        if (!ctx.prompter) { ctx.out('no prompter'); return 0; }
        const colour = await ctx.prompter.select('Colour?', [{ value: 'red', label: 'Red' }, { value: 'blue', label: 'Blue' }]);
        ctx.out(typeof colour === 'string' ? 'colour ' + colour : 'cancelled');
        return 0;
      } },
    { name: 'whoami', summary: 'settings as the provider sees them', usage: 'Usage: hermes-memory acme whoami',
      async run(ctx) {
        ctx.printJson({ workspace: ctx.providerConfig.workspace ?? null, env: ctx.env.ACME_WORKSPACE ?? null });
        return 0;
      } },
  ],
  status(ctx) {
    const f = file(ctx);
    const exists = fs.existsSync(f);
    return {
      stores: [{ name: 'acme-notes.json', path: f, exists, bytes: exists ? fs.statSync(f).size : 0, detail: read(ctx).length + ' notes' }],
      details: { mode: String(ctx.providerConfig.mode ?? 'cloud') },
    };
  },
  doctor(ctx) {
    const set = Boolean(ctx.env.ACME_API_KEY);
    return [{ id: 'key', title: 'Acme API key', status: set ? 'ok' : 'warn', detail: set ? 'set' : 'not set', fix: 'hermes-memory setup acme' }];
  },
  *exportRecords(ctx) { for (const text of read(ctx)) yield { text }; },
  validateRecord(record) { return typeof record.text === 'string' ? undefined : 'a note needs text'; },
  async importRecords(ctx, records, progress) {
    const notes = read(ctx);
    const result = { inserted: 0, skipped: 0, refused: [] };
    for (const r of records) {
      progress.tick();
      if (r.text.includes('FORBIDDEN')) result.refused.push({ error: 'acme refuses that note', record: r });
      else if (notes.includes(r.text)) result.skipped++;
      else { notes.push(r.text); result.inserted++; }
    }
    write(ctx, notes);
    return result;
  },
  async postSetup(ctx, saved) {
    if (saved.values.workspace === 'unreachable') throw ctx.fail('cannot reach acme.example');
    ctx.out('acme: workspace ' + saved.values.workspace + ' is ready');
  },
};
`;

/**
 * A real third-party provider package in a temporary project: found by core's discovery through
 * its `"hermesMemory": {"provider": "acme"}` declaration, and saving its settings with core's
 * `saveConfigValues` under `memory.acme` (as first-party providers do). Its schema exercises every
 * wizard rule: choices, `when`, `defaultFrom`, a secret with `url`, a non-secret `envVar`, bounds.
 */
export function createAcmeProject(): { root: string; cwd: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-cli-project-'));
  installProviderPackage(root, 'acme', {
    'cli.js': ACME_CLI,
    'index.js': `import fs from 'node:fs';
import path from 'node:path';
import { saveConfigValues } from ${JSON.stringify(pathToFileURL(CORE_DIST).href)};
const SCHEMA = [
  { key: 'mode', description: 'Where Acme runs', choices: ['cloud', 'local'], default: 'cloud' },
  { key: 'api_key', description: 'Acme API key', secret: true, required: true, envVar: 'ACME_API_KEY',
    url: 'https://acme.example/keys', when: { mode: 'cloud' } },
  { key: 'endpoint', description: 'Local endpoint', default: 'http://127.0.0.1:9000', when: { mode: 'local' } },
  { key: 'region', description: 'Region', choices: ['us', 'eu'], default: 'eu',
    defaultFrom: { field: 'mode', map: { cloud: 'us' } } },
  { key: 'workspace', description: 'Workspace', default: 'main', envVar: 'ACME_WORKSPACE' },
  { key: 'top_k', description: 'Results per recall', type: 'integer', default: 5, minimum: 1, maximum: 50 },
];
export function createProvider() {
  return {
    name: 'acme',
    isAvailable() { return Boolean(process.env.ACME_API_KEY) || process.env.ACME_MODE === 'local'; },
    unavailableReason() { return 'ACME_API_KEY is not set'; },
    health() {
      return process.env.ACME_DOWN
        ? { status: 'down', reason: 'acme reports an outage', since: 1767261600000, consecutiveFailures: 1 }
        : null;
    },
    probe() {
      return process.env.ACME_API_KEY === 'sk-acme-good'
        ? { status: 'ok', message: 'acme answered' }
        : { status: 'failed', message: 'acme refused the key' };
    },
    initialize() {},
    getToolSchemas() { return []; },
    getConfigSchema() { return SCHEMA; },
    // Settings a user left in acme's own file, as mem0.json or supermemory.json hold theirs.
    savedConfig(home) {
      try { return JSON.parse(fs.readFileSync(path.join(home, 'acme-settings.json'), 'utf8')); } catch { return {}; }
    },
    saveConfig(values, home) {
      const patch = {};
      for (const [k, v] of Object.entries(values)) patch['memory.acme.' + k] = v;
      saveConfigValues(home, patch);
    },
  };
}
`,
  });
  const cwd = path.join(root, 'app');
  fs.mkdirSync(cwd);
  return { root, cwd };
}

/**
 * Install the package `<id>-memory` in `<root>/node_modules` as npm would: a manifest declaring
 * `"hermesMemory": {"provider": id}` (and `cli: './cli.js'` when `files` has one), `index.js` its
 * entry, and `files` beside it. Returns its folder.
 */
export function installProviderPackage(root: string, id: string, files: Record<string, string>): string {
  const dir = path.join(root, 'node_modules', `${id}-memory`);
  fs.mkdirSync(dir, { recursive: true });
  const hermesMemory = { provider: id, ...('cli.js' in files ? { cli: './cli.js' } : {}) };
  const manifest = { name: `${id}-memory`, type: 'module', main: 'index.js', hermesMemory };
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

/** The acme project for one test file: created before its tests, removed after them. */
export function useAcmeProject(): { root: string; cwd: string } {
  const project = { root: '', cwd: '' };
  beforeAll(() => {
    Object.assign(project, createAcmeProject());
  });
  afterAll(() => fs.rmSync(project.root, { recursive: true, force: true }));
  return project;
}
