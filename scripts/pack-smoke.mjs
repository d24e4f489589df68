#!/usr/bin/env node
/**
 * Pack smoke test: what users get from npm, not what the workspace sees.
 *
 * 1. `pnpm pack` every public package (found on disk) and the provider templates (private, but
 *    they are what authors fork and publish) into a temp dir; pnpm rewrites `workspace:` ranges to
 *    real ones, as `pnpm publish` does.
 * 2. Each package alone: a scratch project installs its tarball with plain npm, next to its declared
 *    peers (ours from their tarballs, others from the registry; optional peers left out, except ours
 *    for a package with a `./testing` entry, which is imported too) and nothing
 *    else; it is imported from ESM and from CommonJS, with every subpath export; and a consumer
 *    project typechecks against it with `tsc --strict --noEmit`, `skipLibCheck: false`, for
 *    `moduleResolution` nodenext (an `.mts` and a `.cts` file) and bundler. Install scripts are
 *    skipped here (nothing compiles; better-sqlite3 loads its binary only when a database opens).
 * 3. Behaviour: one project installs core, testkit, both templates, holographic and continuity
 *    (scripts on) and runs them from `.mjs` and `.cjs`: a local template provider stores and finds a
 *    fact, the remote template does the same against its fake backend from `./testing`, the fake server
 *    answers core's LLM client, and holographic bulk-imports facts on its encode worker (a file of
 *    its own, so a missing or misnamed worker shows here).
 *
 * One line per package and a summary; exits non-zero on the first failure. `--keep` keeps the temp
 * dir; `--only <id,…>` limits step 2 to some folders; `--no-behaviour` skips step 3. Missing dist
 * folders are built first.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { npmEnv, runPnpm, toolEnv } from './pnpm.mjs';
import { repoRoot as repo, workspacePackages } from './workspace.mjs';

const args = process.argv.slice(2);
const keep = args.includes('--keep');
const behaviour = !args.includes('--no-behaviour');
const onlyAt = args.indexOf('--only');
const only = onlyAt >= 0 ? new Set(args[onlyAt + 1]?.split(',')) : null;
const tsc = path.join(repo, 'node_modules/typescript/bin/tsc');
const INTERNAL = '@hermes-memory/';

const packages = workspacePackages(repo).filter(
  (p) => p.manifest.private !== true || p.manifest.hermesMemory?.provider !== undefined,
);
const byName = new Map(packages.map((p) => [p.manifest.name, p]));

/**
 * Continuity as installed (its optional peer @hermes-memory/embeddings absent: lexical): a record
 * added through the tool comes back in prefetch, "thanks!" recalls nothing, the file is private,
 * and the ./cli subpath exports the store. `continuity`, `continuityCli`, `core` in scope.
 */
const CONTINUITY_CHECK = `
  const cHome = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-pack-continuity-'));
  const cProvider = continuity.createProvider();
  await cProvider.initialize('smoke', { hermesHome: cHome, platform: 'cli', agentContext: 'primary', logger: core.silentLogger });
  const added = JSON.parse(await cProvider.handleToolCall('continuity_add', { kind: 'decision', title: 'Smoke', summary: 'The pack smoke test deploys with blue-green releases.' }));
  assert.equal(added.success, true);
  assert.match(await cProvider.prefetch('does the pack smoke test deploy with blue-green releases?'), new RegExp(added.record_id));
  assert.equal(await cProvider.prefetch('thanks!'), '');
  await cProvider.shutdown();
  assert.equal(fs.statSync(path.join(cHome, 'continuity', 'continuity.db')).mode & 0o777, 0o600);
  const cStore = continuityCli.openStore({ hermesHome: cHome });
  assert.deepEqual([...continuityCli.exportItems(cStore)].map((i) => i.type), ['record']);
  cStore.close();
  fs.rmSync(cHome, { recursive: true, force: true });
`;

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

const ESM_CHECK = `
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as core from '@hermes-memory/core';
import * as testkit from '@hermes-memory/testkit';
import * as testkitVitest from '@hermes-memory/testkit/vitest';
import * as testkitHttp from '@hermes-memory/testkit/http';
import * as fakeOpenAI from '@hermes-memory/testkit/fake-openai';
import * as template from '@hermes-memory/provider-template-local';
import * as remote from '@hermes-memory/provider-template';
import { FAKE_TEMPLATE_KEY, startFakeTemplate } from '@hermes-memory/provider-template/testing';
import * as holographic from '@hermes-memory/holographic';
import * as continuity from '@hermes-memory/continuity';
import * as continuityCli from '@hermes-memory/continuity/cli';

for (const key of ['MemoryProvider', 'MemoryManager', 'SerialQueue', 'scanWrite', 'toolError', 'canWrite']) {
  assert.ok(key in core, 'core export ' + key);
}
for (const key of ['runConformanceCheck', 'runConformanceSuite', 'startFakeOpenAI', 'startFakeServer', 'tempHermesHome', 'collectLogs', 'CONFORMANCE_CHECK_IDS']) {
  assert.ok(key in testkit, 'testkit export ' + key);
}
assert.equal(typeof testkitVitest.describeMemoryProvider, 'function');
assert.equal(typeof testkit.describeMemoryProvider, 'function', 'the root keeps describeMemoryProvider');
assert.equal(typeof testkitHttp.startFakeServer, 'function');
assert.equal(typeof fakeOpenAI.startFakeOpenAI, 'function');
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

const backend = await startFakeTemplate();
const remoteProvider = remote.createProvider({ baseURL: backend.url, apiKey: FAKE_TEMPLATE_KEY });
assert.ok(remoteProvider instanceof core.MemoryProvider, 'remote template provider extends the installed core MemoryProvider');
await remoteProvider.initialize('smoke', { hermesHome: home, platform: 'cli', agentContext: 'primary', logger: core.silentLogger });
assert.equal(JSON.parse(await remoteProvider.handleToolCall('template_remember', { content: 'The smoke test likes green tea.' })).success, true);
assert.equal(JSON.parse(await remoteProvider.handleToolCall('template_search', { query: 'green tea' })).count, 1);
assert.equal((await remoteProvider.probe()).status, 'ok');
await remoteProvider.shutdown();
assert.equal(backend.requests.some((r) => JSON.stringify(r).includes(FAKE_TEMPLATE_KEY)), false, 'the fake redacts the key');
await backend.close();

const result = await testkit.runConformanceCheck('tools.schema-valid', { create: () => template.createProvider() });
assert.equal(result.status, 'passed', result.message);

const fake = await testkit.startFakeOpenAI({ script: ['pong'] });
const client = new core.OpenAICompatibleLlmClient({ baseURL: fake.url, model: 'fake-chat' });
assert.equal((await client.chat({ messages: [{ role: 'user', content: 'ping' }] })).content, 'pong');
await fake.close();
fs.rmSync(home, { recursive: true, force: true });
${HOLOGRAPHIC_CHECK}
${CONTINUITY_CHECK}
console.log('esm ok');
`;

const CJS_CHECK = `
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const core = require('@hermes-memory/core');
const testkit = require('@hermes-memory/testkit');
const template = require('@hermes-memory/provider-template-local');
const holographic = require('@hermes-memory/holographic');
const continuity = require('@hermes-memory/continuity');
const continuityCli = require('@hermes-memory/continuity/cli');

(async () => {
  assert.equal(typeof core.MemoryProvider, 'function');
  assert.equal(typeof testkit.startFakeOpenAI, 'function');
  assert.equal(typeof testkit.runConformanceCheck, 'function');
  assert.throws(() => require('@hermes-memory/testkit/vitest').describeMemoryProvider('x', { create() {} }), /ESM-only|vitest/);
  assert.equal(typeof require('@hermes-memory/testkit/http').startFakeServer, 'function');
  assert.equal(typeof require('@hermes-memory/testkit/fake-openai').startFakeOpenAI, 'function');
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
  ${CONTINUITY_CHECK}
  console.log('cjs ok');
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
`;

function run(command, commandArgs, cwd, env = npmEnv(toolEnv())) {
  try {
    return execFileSync(command, commandArgs, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    });
  } catch (error) {
    const output = `${error.stdout ?? ''}${error.stderr ?? ''}`.trim().split('\n').slice(-25).join('\n');
    throw new Error(
      `${path.basename(command)} ${commandArgs.join(' ').slice(0, 200)} failed in ${cwd}:\n${output}`,
    );
  }
}

function pnpm(pnpmArgs, cwd) {
  const result = runPnpm(pnpmArgs, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0) {
    throw new Error(
      `pnpm ${pnpmArgs.join(' ')} failed in ${cwd}:\n${result.stdout ?? ''}${result.stderr ?? ''}`,
    );
  }
}

/** Subpaths a consumer can import: the `exports` keys other than `.` and `./package.json`. */
function subpaths(manifest) {
  const keys = manifest.exports && typeof manifest.exports === 'object' ? Object.keys(manifest.exports) : [];
  return keys
    .filter((k) => k.startsWith('./') && k !== './package.json' && !k.includes('*'))
    .map((k) => k.slice(1));
}

/** What installs next to `name`: our packages it needs (tarballs) and external required peers. */
function installSet(name, tarballs) {
  const ours = new Set();
  const external = new Map();
  const visit = (current) => {
    if (ours.has(current)) return;
    ours.add(current);
    const m = byName.get(current).manifest;
    const optional = m.peerDependenciesMeta ?? {};
    // A `./testing` entry (a fake backend on testkit) needs its package's optional peers of ours:
    // every subpath is imported below. Other optional peers stay out, so "works without" is proven.
    const testing = current === name && subpaths(m).includes('/testing');
    const needed = {
      ...m.dependencies,
      ...Object.fromEntries(
        Object.entries(m.peerDependencies ?? {}).filter(
          ([dep]) => !optional[dep]?.optional || (testing && dep.startsWith(INTERNAL)),
        ),
      ),
    };
    for (const [dep, range] of Object.entries(needed)) {
      if (dep.startsWith(INTERNAL)) visit(dep);
      else if (m.peerDependencies?.[dep] === range) external.set(dep, range);
    }
  };
  visit(name);
  return [
    ...[...ours].map((n) => tarballs.get(n)),
    ...[...external].map(([dep, range]) => `${dep}@${range}`),
  ];
}

function scratchProject(dir, manifest = {}) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'hm-consumer', version: '0.0.0', private: true, ...manifest }),
  );
  return dir;
}

/** Installs one package alone, imports it both ways, typechecks a consumer against it. */
function checkAlone(pkg, tarballs, work) {
  const name = pkg.manifest.name;
  const specifiers = [name, ...subpaths(pkg.manifest).map((s) => `${name}${s}`)];
  const project = scratchProject(path.join(work, `alone-${pkg.id}`));
  run(
    'npm',
    [
      'install',
      '--ignore-scripts',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      ...installSet(name, tarballs),
    ],
    project,
  );

  const esm = specifiers.map((s, i) => `import * as m${i} from ${JSON.stringify(s)};`).join('\n');
  const esmCheck = specifiers.map(
    (s, i) => `if (Object.keys(m${i}).length === 0) throw new Error('${s}: no exports');`,
  );
  fs.writeFileSync(path.join(project, 'esm.mjs'), `${esm}\n${esmCheck.join('\n')}\n`);
  fs.writeFileSync(
    path.join(project, 'cjs.cjs'),
    specifiers
      .map(
        (s) =>
          `if (Object.keys(require(${JSON.stringify(s)})).length === 0) throw new Error('${s}: no exports');`,
      )
      .join('\n'),
  );
  run(process.execPath, ['esm.mjs'], project);
  run(process.execPath, ['cjs.cjs'], project);

  // Every specifier, as an ES module (.mts, .ts) and as CommonJS (.cts, import = require).
  const use = specifiers.map((_, i) => `m${i}`).join(', ');
  fs.writeFileSync(path.join(project, 'consumer.mts'), `${esm}\nexport const all = [${use}];\n`);
  fs.writeFileSync(path.join(project, 'consumer.ts'), `${esm}\nexport const all = [${use}];\n`);
  fs.writeFileSync(
    path.join(project, 'consumer.cts'),
    `${specifiers.map((s, i) => `import m${i} = require(${JSON.stringify(s)});`).join('\n')}\nexport const all = [${use}];\n`,
  );
  const strict = { strict: true, noEmit: true, skipLibCheck: false, target: 'es2022' };
  const configs = {
    'tsconfig.nodenext.json': {
      compilerOptions: { ...strict, module: 'nodenext', moduleResolution: 'nodenext' },
      files: ['consumer.mts', 'consumer.cts'],
    },
    'tsconfig.bundler.json': {
      compilerOptions: { ...strict, module: 'esnext', moduleResolution: 'bundler' },
      files: ['consumer.ts'],
    },
  };
  for (const [file, config] of Object.entries(configs)) {
    fs.writeFileSync(path.join(project, file), JSON.stringify(config, null, 2));
    run(process.execPath, [tsc, '-p', file], project);
  }
  return specifiers.length;
}

function checkBehaviour(tarballs, work) {
  const project = scratchProject(path.join(work, 'behaviour'));
  const names = [
    'core',
    'testkit',
    'provider-template',
    'provider-template-local',
    'holographic',
    'continuity',
  ].map((id) => `${INTERNAL}${id}`);
  // Install scripts run here: holographic's better-sqlite3 builds (node-gyp needs npm_config_nodedir).
  run(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      ...names.map((n) => tarballs.get(n)),
    ],
    project,
    toolEnv({ ...process.env, npm_config_update_notifier: 'false' }),
  );
  fs.writeFileSync(path.join(project, 'check.mjs'), ESM_CHECK);
  fs.writeFileSync(path.join(project, 'check.cjs'), CJS_CHECK);
  const esm = run(process.execPath, ['check.mjs'], project).trim();
  if (esm !== 'esm ok') throw new Error(`ESM check printed: ${esm}`);
  const cjs = run(process.execPath, ['check.cjs'], project).trim();
  if (cjs !== 'cjs ok') throw new Error(`CJS check printed: ${cjs}`);
}

const started = Date.now();
const seconds = (since) => ((Date.now() - since) / 1000).toFixed(1);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-pack-smoke-'));
let step = 'build';
try {
  const unbuilt = packages.filter((p) => !fs.existsSync(path.join(p.dir, 'dist')));
  if (unbuilt.length > 0) {
    pnpm(
      [
        'turbo',
        'run',
        'build',
        '--output-logs=errors-only',
        ...unbuilt.map((p) => `--filter=${p.manifest.name}`),
      ],
      repo,
    );
  }
  step = 'pack';
  const tarballs = new Map();
  for (const pkg of packages) {
    const before = new Set(fs.readdirSync(work));
    pnpm(['pack', '--pack-destination', work], pkg.dir);
    const created = fs.readdirSync(work).filter((f) => f.endsWith('.tgz') && !before.has(f));
    if (created.length !== 1) throw new Error(`pnpm pack in ${pkg.rel} produced ${created.length} tarballs`);
    tarballs.set(pkg.manifest.name, path.join(work, created[0]));
  }
  console.log(`pack-smoke: packed ${tarballs.size} packages (${seconds(started)}s)`);

  for (const pkg of packages.filter((p) => !only || only.has(p.id))) {
    step = `${pkg.manifest.name} alone`;
    const t = Date.now();
    const count = checkAlone(pkg, tarballs, work);
    console.log(
      `pack-smoke: ${pkg.manifest.name} installed alone, ${count} entr${count === 1 ? 'y' : 'ies'} imported (ESM, CJS), typechecked (nodenext .mts/.cts, bundler) (${seconds(t)}s)`,
    );
  }

  if (behaviour) {
    step = 'behaviour';
    const t = Date.now();
    checkBehaviour(tarballs, work);
    console.log(
      `pack-smoke: core, testkit, templates, holographic, continuity work from ESM and CJS (${seconds(t)}s)`,
    );
  }
  console.log(`pack-smoke: ok (${seconds(started)}s)`);
} catch (error) {
  console.error(`pack-smoke: FAILED at ${step} — ${error.message}`);
  process.exitCode = 1;
} finally {
  if (keep) console.error(`pack-smoke: kept ${work}`);
  else fs.rmSync(work, { recursive: true, force: true });
}
