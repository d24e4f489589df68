import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll } from 'vitest';

const CORE_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../core/dist/index.js');

/**
 * A real third-party provider package in a temporary project: found by core's discovery through
 * its `"hermesMemory": {"provider": "acme"}` declaration, and saving its settings with core's
 * `saveConfigValues` under `memory.acme` (as first-party providers do). Its schema exercises every
 * wizard rule: choices, `when`, `defaultFrom`, a secret with `url`, a non-secret `envVar`, bounds.
 */
export function createAcmeProject(): { root: string; cwd: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-cli-project-'));
  const dir = path.join(root, 'node_modules', 'acme-memory');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({
      name: 'acme-memory',
      type: 'module',
      main: 'index.js',
      hermesMemory: { provider: 'acme' },
    }),
  );
  fs.writeFileSync(
    path.join(dir, 'index.js'),
    `import { saveConfigValues } from ${JSON.stringify(pathToFileURL(CORE_DIST).href)};
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
    initialize() {},
    getToolSchemas() { return []; },
    getConfigSchema() { return SCHEMA; },
    saveConfig(values, home) {
      const patch = {};
      for (const [k, v] of Object.entries(values)) patch['memory.acme.' + k] = v;
      saveConfigValues(home, patch);
    },
  };
}
`,
  );
  const cwd = path.join(root, 'app');
  fs.mkdirSync(cwd);
  return { root, cwd };
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
