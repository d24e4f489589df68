#!/usr/bin/env node
// How every script of ours runs pnpm, on a machine that may have only Node and npm: the pnpm on PATH
// when it is a 10.x, else the pinned release fetched once by npm into its npx cache and then run
// directly with Node (no npm in between on later calls, so npm never sees or warns about our
// environment). `node scripts/pnpm.mjs <args>` runs pnpm with those arguments.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PNPM_VERSION = '10.34.9';

/** Node's headers, for compiling better-sqlite3 when its prebuilt binary cannot be downloaded. */
const LOCAL_NODE_HEADERS = '/usr/include/node/node.h';

/**
 * The environment our tools run in: telemetry off (Turborepo, mem0), and node-gyp pointed at the
 * local Node headers when they exist, so a source build of better-sqlite3 works offline. Only pnpm
 * and node-gyp read `npm_config_nodedir`; npm itself would warn about it, so npm never gets it.
 */
export function toolEnv(base = process.env) {
  const env = { ...base };
  env.TURBO_TELEMETRY_DISABLED ??= '1';
  env.TURBO_NO_UPDATE_NOTIFIER ??= '1';
  env.MEM0_TELEMETRY ??= 'false';
  if (!env.npm_config_nodedir && fs.existsSync(LOCAL_NODE_HEADERS)) env.npm_config_nodedir = '/usr';
  return env;
}

/** `env` without the settings npm does not know (it warns about each), and without its update notice. */
export function npmEnv(base = process.env) {
  const env = { ...base, npm_config_update_notifier: 'false', npm_config_fund: 'false' };
  for (const key of Object.keys(env)) if (/^npm_config_nodedir$/i.test(key)) delete env[key];
  return env;
}

function pnpmOnPath(env) {
  const result = spawnSync('pnpm', ['--version'], {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return result.status === 0 && result.stdout.trim().startsWith('10.');
}

/** The pinned pnpm's entry file, installed into npm's npx cache on first use. */
function pnpmFromNpx(env) {
  const locate = `
    const fs = require('node:fs'), path = require('node:path');
    for (const dir of process.env.PATH.split(path.delimiter)) {
      const manifest = path.join(dir, '..', 'pnpm', 'package.json');
      if (dir.endsWith(path.join('node_modules', '.bin')) && fs.existsSync(manifest)
          && JSON.parse(fs.readFileSync(manifest, 'utf8')).version === ${JSON.stringify(PNPM_VERSION)}) {
        process.stdout.write(path.join(dir, '..', 'pnpm', 'bin', 'pnpm.cjs'));
        break;
      }
    }`;
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(
    npm,
    ['exec', '--yes', `--package=pnpm@${PNPM_VERSION}`, '--', 'node', '-e', locate],
    {
      env: npmEnv(env),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: process.platform === 'win32',
    },
  );
  const entry = result.stdout?.trim();
  if (result.status !== 0 || !entry || !fs.existsSync(entry)) {
    throw new Error(
      `cannot get pnpm ${PNPM_VERSION} through npm (npm exec --package=pnpm@${PNPM_VERSION}):\n${result.stderr ?? result.error}`,
    );
  }
  return entry;
}

let resolved;
/** `[command, ...leadingArgs]` that runs pnpm: `['pnpm']` or `[node, '<npx cache>/pnpm/bin/pnpm.cjs']`. */
export function pnpmCommand(env = toolEnv()) {
  resolved ??= pnpmOnPath(env) ? ['pnpm'] : [process.execPath, pnpmFromNpx(env)];
  return resolved;
}

/**
 * `env` with the pinned pnpm's bin folder first on PATH when it came through npx: tools pnpm starts
 * look for the package manager there (turbo reads `packageManager` and runs `pnpm` to list the workspace).
 */
function withPnpmOnPath(env, command) {
  if (command.length === 1) return env;
  const bin = path.resolve(path.dirname(command[1]), '..', '..', '.bin');
  const key = Object.keys(env).find((k) => k.toUpperCase() === 'PATH') ?? 'PATH';
  return { ...env, [key]: [bin, env[key]].filter(Boolean).join(path.delimiter) };
}

/** Run pnpm synchronously (spawnSync options; the environment defaults to `toolEnv()`). */
export function runPnpm(args, options = {}) {
  const command = pnpmCommand(options.env ?? toolEnv());
  const env = withPnpmOnPath(options.env ?? toolEnv(), command);
  const [program, ...lead] = command;
  return spawnSync(program, [...lead, ...args], { ...options, env });
}

const invokedDirectly = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  const result = runPnpm(process.argv.slice(2), { stdio: 'inherit' });
  if (result.error) console.error(`pnpm: ${result.error.message}`);
  process.exit(result.status ?? 1);
}
