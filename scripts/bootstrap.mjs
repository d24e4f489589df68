#!/usr/bin/env node
// The two commands a fresh machine runs: `npm run quickstart` and `npm test`.
// Needs only Node >= 20 and npm: it brings pnpm (pinned), installs, builds what the job needs, runs it.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PNPM_VERSION = '10.34.9';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [job, ...rest] = process.argv.slice(2);

const env = { ...process.env, MEM0_TELEMETRY: process.env.MEM0_TELEMETRY ?? 'false' };
// better-sqlite3 compiles from source where its prebuilt binary cannot be downloaded; node-gyp then
// needs the local Node headers instead of fetching them.
if (!env.npm_config_nodedir && existsSync('/usr/include/node/node.h')) env.npm_config_nodedir = '/usr';

function pnpmCommand() {
  try {
    const version = execFileSync('pnpm', ['--version'], {
      encoding: 'utf8',
      env,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    if (version.startsWith('10.')) return ['pnpm'];
  } catch {
    // not installed: fall through to npx
  }
  return ['npx', '--yes', `pnpm@${PNPM_VERSION}`];
}

const pnpm = pnpmCommand();
function run(args, options = {}) {
  const [cmd, ...pre] = pnpm;
  const result = spawnSync(cmd, [...pre, ...args], { cwd: root, env, stdio: 'inherit', ...options });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function install() {
  run(['install', '--frozen-lockfile', '--reporter=silent']);
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
