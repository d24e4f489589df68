#!/usr/bin/env node
/**
 * Pack smoke test: what users get from npm, not what the workspace sees.
 *
 * 1. `pnpm pack` core, testkit, holographic and the provider template (private, packed anyway)
 *    into a temp dir
 *    (pnpm rewrites `workspace:` ranges to real versions, as `pnpm publish` would);
 * 2. `npm install` the tarballs with plain npm into a scratch project (registry deps from the cache
 *    when possible: --prefer-offline --no-audit --no-fund);
 * 3. import them from an ES module (.mjs) and from CommonJS (.cjs), check the key exports, create and
 *    initialize a template provider, store and find a fact, answer a request from the fake server,
 *    and bulk-import facts into holographic's FactStore (its encode worker is a file of its own, so
 *    this is where a missing or misnamed worker would show: the debug log says who encoded).
 *
 * Prints one summary line; exits non-zero on the first failure. `--keep` keeps the temp dir.
 * Packages must be built (`pnpm turbo run build --filter=@hermes-memory/provider-template...`);
 * missing dist folders are built first.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const keep = process.argv.includes('--keep');
const PACKAGES = [
  { dir: 'packages/core', name: '@hermes-memory/core' },
  { dir: 'packages/testkit', name: '@hermes-memory/testkit' },
  { dir: 'packages/provider-template', name: '@hermes-memory/provider-template' },
  { dir: 'packages/holographic', name: '@hermes-memory/holographic' },
];

/** Bulk import through the installed holographic package; `fs`, `os`, `path`, `assert` in scope. */
const HOLOGRAPHIC_CHECK = `
  const bulkDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-pack-holo-'));
  const logs = [];
  const logger = { debug: (m, meta) => logs.push({ m, meta }), info() {}, warn() {}, error() {} };
  const items = Array.from({ length: 6000 }, (_, i) => ({ content: 'Ann: note ' + i + ' about the Lisbon trip' }));
  const vectors = (parallelIngest) => {
    const store = new holographic.FactStore({ dbPath: path.join(bulkDir, parallelIngest + '.db'), parallelIngest, logger });
    store.addMany(items);
    const rows = store.db.prepare('SELECT hex(hrr_vector) AS v FROM facts ORDER BY fact_id').all();
    store.close();
    return rows.map((r) => r.v).join('');
  };
  assert.equal(vectors(true), vectors(false));
  const encoded = logs.find((l) => l.m === 'holographic: bulk import vectors encoded');
  assert.ok(encoded && encoded.meta.workerChunks > 0, 'the encode worker ran: ' + JSON.stringify(encoded));
  fs.rmSync(bulkDir, { recursive: true, force: true });
`;

const started = Date.now();
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-pack-smoke-'));
const steps = [];

function run(command, args, cwd) {
  try {
    return execFileSync(command, args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false' },
    });
  } catch (error) {
    const output = `${error.stdout ?? ''}${error.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n');
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${output}`);
  }
}

const ESM_CHECK = `
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as core from '@hermes-memory/core';
import * as testkit from '@hermes-memory/testkit';
import * as template from '@hermes-memory/provider-template';
import * as holographic from '@hermes-memory/holographic';

for (const key of ['MemoryProvider', 'MemoryManager', 'SerialQueue', 'scanWrite', 'toolError', 'canWrite']) {
  assert.ok(key in core, 'core export ' + key);
}
for (const key of ['describeMemoryProvider', 'runConformanceCheck', 'runConformanceSuite', 'startFakeOpenAI', 'tempHermesHome', 'collectLogs', 'CONFORMANCE_CHECK_IDS']) {
  assert.ok(key in testkit, 'testkit export ' + key);
}
assert.equal(typeof template.createProvider, 'function');
assert.equal(template.createProvider, template.createTemplateProvider);

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-pack-esm-'));
const provider = template.createProvider();
assert.ok(provider instanceof core.MemoryProvider, 'template provider extends the installed core MemoryProvider');
assert.equal(provider.isAvailable(), true);
await provider.initialize('smoke', { hermesHome: home, platform: 'cli', agentContext: 'primary', logger: core.silentLogger });
const stored = JSON.parse(await provider.handleToolCall('template_remember', { content: 'The smoke test likes green tea.' }));
assert.equal(stored.success, true);
const found = JSON.parse(await provider.handleToolCall('template_search', { query: 'green tea' }));
assert.equal(found.count, 1);
await provider.shutdown();
assert.equal(fs.statSync(path.join(home, 'template-memory.jsonl')).mode & 0o777, 0o600);

const result = await testkit.runConformanceCheck('tools.schema-valid', { create: () => template.createProvider() });
assert.equal(result.status, 'passed', result.message);

const fake = await testkit.startFakeOpenAI({ script: ['pong'] });
const client = new core.OpenAICompatibleLlmClient({ baseURL: fake.url, model: 'fake-chat' });
assert.equal((await client.chat({ messages: [{ role: 'user', content: 'ping' }] })).content, 'pong');
await fake.close();
fs.rmSync(home, { recursive: true, force: true });
${HOLOGRAPHIC_CHECK}
console.log('esm ok');
`;

const CJS_CHECK = `
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const core = require('@hermes-memory/core');
const testkit = require('@hermes-memory/testkit');
const template = require('@hermes-memory/provider-template');
const holographic = require('@hermes-memory/holographic');

(async () => {
  assert.equal(typeof core.MemoryProvider, 'function');
  assert.equal(typeof testkit.startFakeOpenAI, 'function');
  assert.equal(typeof testkit.runConformanceCheck, 'function');
  assert.throws(() => testkit.describeMemoryProvider('x', { create() {} }), /ESM-only|vitest/);
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-pack-cjs-'));
  const provider = template.createProvider();
  assert.ok(core.isMemoryProvider(provider));
  await provider.initialize('smoke', { hermesHome: home, platform: 'cli', agentContext: 'primary', logger: core.silentLogger });
  provider.syncTurn('I keep a sourdough starter called Bubbles.', 'Noted.');
  await provider.shutdown();
  const again = template.createProvider();
  await again.initialize('smoke', { hermesHome: home, platform: 'cli', agentContext: 'primary', logger: core.silentLogger });
  const found = JSON.parse(await again.handleToolCall('template_search', { query: 'sourdough Bubbles' }));
  assert.equal(found.count, 1);
  await again.shutdown();
  const fake = await testkit.startFakeOpenAI();
  const response = await fetch(fake.url + '/embeddings', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input: ['a', 'b'] }),
  });
  assert.equal((await response.json()).data.length, 2);
  await fake.close();
  fs.rmSync(home, { recursive: true, force: true });
  ${HOLOGRAPHIC_CHECK}
  console.log('cjs ok');
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
`;

try {
  for (const pkg of PACKAGES) {
    if (!fs.existsSync(path.join(repo, pkg.dir, 'dist'))) {
      run('pnpm', ['turbo', 'run', 'build', `--filter=${pkg.name}`], repo);
    }
  }
  const tarballs = [];
  for (const pkg of PACKAGES) {
    const before = new Set(fs.readdirSync(work));
    run('pnpm', ['pack', '--pack-destination', work], path.join(repo, pkg.dir));
    const created = fs.readdirSync(work).filter((f) => f.endsWith('.tgz') && !before.has(f));
    if (created.length !== 1) throw new Error(`pnpm pack in ${pkg.dir} produced ${created.length} tarballs`);
    tarballs.push(path.join(work, created[0]));
  }
  steps.push(`packed ${tarballs.length}`);

  const project = path.join(work, 'project');
  fs.mkdirSync(project);
  fs.writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'hm-pack-smoke', version: '0.0.0', private: true }),
  );
  run(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs],
    project,
  );
  steps.push('installed');

  fs.writeFileSync(path.join(project, 'check.mjs'), ESM_CHECK);
  fs.writeFileSync(path.join(project, 'check.cjs'), CJS_CHECK);
  const esm = run(process.execPath, ['check.mjs'], project).trim();
  if (esm !== 'esm ok') throw new Error(`ESM check printed: ${esm}`);
  steps.push('esm');
  const cjs = run(process.execPath, ['check.cjs'], project).trim();
  if (cjs !== 'cjs ok') throw new Error(`CJS check printed: ${cjs}`);
  steps.push('cjs');

  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(
    `pack-smoke: ok — ${PACKAGES.map((p) => p.name).join(', ')} packed, installed with npm, imported from ESM and CJS (${seconds}s)`,
  );
} catch (error) {
  console.error(`pack-smoke: FAILED after [${steps.join(', ')}] — ${error.message}`);
  process.exitCode = 1;
} finally {
  if (keep) console.error(`pack-smoke: kept ${work}`);
  else fs.rmSync(work, { recursive: true, force: true });
}
