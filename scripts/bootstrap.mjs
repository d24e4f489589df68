#!/usr/bin/env node
// The two commands a fresh machine runs: `npm run quickstart` and `npm test`.
// Needs only Node >= 20 and npm: it brings pnpm (scripts/pnpm.mjs), installs, builds what the job
// needs, runs it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PNPM_VERSION, runPnpm, toolEnv } from './pnpm.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [job, ...rest] = process.argv.slice(2);
const env = toolEnv();

function run(args) {
  const result = runPnpm(args, { cwd: root, env, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

/** Whether better-sqlite3's native module is already built in this checkout. */
function sqliteBuilt() {
  const store = path.join(root, 'node_modules/.pnpm');
  if (!fs.existsSync(store)) return false;
  return fs
    .readdirSync(store)
    .filter((name) => name.startsWith('better-sqlite3@'))
    .some((name) =>
      fs.existsSync(path.join(store, name, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node')),
    );
}

function install() {
  if (!sqliteBuilt()) {
    console.log(
      `Installing dependencies with pnpm ${PNPM_VERSION}. The first install builds SQLite for better-sqlite3 ` +
        'from source when no prebuilt binary can be downloaded: that takes a minute or two, once.',
    );
  }
  // Quiet when it works; when it fails, what pnpm said is the only clue, so it is shown then.
  const result = runPnpm(['install', '--frozen-lockfile', '--reporter=append-only'], {
    cwd: root,
    env,
    stdio: ['inherit', 'pipe', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.status === 0) return;
  const said = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(-40).join('\n');
  console.error(said || `pnpm install failed${result.error ? `: ${result.error.message}` : ''}`);
  console.error(
    `\npnpm install --frozen-lockfile failed (exit ${result.status ?? 'none'}); its last lines are above.`,
  );
  process.exit(result.status || 1);
}

if (job === 'quickstart') {
  install();
  run([
    'turbo',
    'run',
    'build',
    '--filter=@hermes-memory/example-quickstart...',
    '--output-logs=errors-only',
  ]);
  run(['--silent', '--filter', '@hermes-memory/example-quickstart', 'start', ...rest]);
} else if (job === 'test') {
  install();
  run(['turbo', 'run', 'build', '--output-logs=errors-only']);
  const result = spawnSync(process.execPath, [path.join(root, 'scripts/test-packages.mjs'), ...rest], {
    cwd: root,
    env,
    stdio: 'inherit',
  });
  process.exit(result.status ?? 1);
} else {
  console.error('usage: node scripts/bootstrap.mjs quickstart|test [args]');
  process.exit(2);
}
