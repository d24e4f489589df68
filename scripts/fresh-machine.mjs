#!/usr/bin/env node
/**
 * The README's promise, tested as a newcomer meets it: the two commands on a machine with only Node
 * and npm.
 *
 *   node scripts/fresh-machine.mjs [--keep] [--then "<command>"]...
 *
 * 1. Copies the clone (tracked and untracked-but-not-ignored files: no node_modules, no dist, no
 *    .turbo) into a temp folder with nothing beside it, so there is no `../shared`.
 * 2. Builds a PATH of symlinks to the system's tools — every executable on the current PATH outside
 *    the user's home — minus pnpm, pnpx, corepack and yarn; node, npm and npx must be there.
 * 3. Runs with an empty HOME (no npm or pnpm cache, no ~/.npmrc), npm's global prefix pointed at an
 *    empty folder (a global pnpm is not seen), and none of our variables (no npm_config_nodedir, no
 *    TURBO_*, no CI); only machine settings pass through (CA certificates, proxies, the system npmrc).
 * 4. `npm run quickstart`, then `npm test`, in the copy; then each `--then` command there, same
 *    environment (CI runs its typecheck, lint and pack smoke test this way on the same install).
 *
 * Fails when a command fails, when `npm test` does not close with "tests: N passed, 0 failed", or
 * when the output carries noise our scripts cause (npm's unknown-config warnings, Turborepo's
 * telemetry notice). Prints each step's time and the test count.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './workspace.mjs';

const args = process.argv.slice(2);
const keep = args.includes('--keep');
const then = args.flatMap((arg, i) => (arg === '--then' && args[i + 1] ? [args[i + 1]] : []));

/** Not on a fresh machine: package managers other than npm. */
const HIDDEN_TOOLS = new Set(['pnpm', 'pnpx', 'corepack', 'yarn', 'yarnpkg']);
/** Machine settings a newcomer's shell would have too. */
const MACHINE_ENV = [
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'LANG',
  'TZ',
];
/** Output our scripts must never cause. */
const NOISE = [
  [/Unknown (?:env|user|project|builtin|cli|global) config/i, "npm warns about a setting it doesn't know"],
  // Turborepo's first-run notice (our scripts opt out); an SDK's own log lines under test are not ours.
  [/Turborepo now collects[^\n]*telemetry/i, "Turborepo's telemetry notice"],
];

const started = Date.now();
const elapsed = (since) => {
  const s = Math.round((Date.now() - since) / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
};
const log = (message) => console.log(`\n[fresh-machine] ${message}`);

function copyClone(target) {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repoRoot,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  let files = 0;
  for (const rel of listed.split('\0')) {
    if (rel === '') continue;
    const from = path.join(repoRoot, rel);
    if (!fs.existsSync(from)) continue; // deleted in the working tree
    fs.mkdirSync(path.dirname(path.join(target, rel)), { recursive: true });
    fs.copyFileSync(from, path.join(target, rel));
    fs.chmodSync(path.join(target, rel), fs.statSync(from).mode);
    files++;
  }
  return files;
}

/** A bin folder of symlinks to the system's tools (first on PATH wins), without pnpm and friends. */
function systemBin(target) {
  const home = os.homedir();
  fs.mkdirSync(target);
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir === '' || !path.isAbsolute(dir) || dir === home || dir.startsWith(home + path.sep)) continue;
    if (!fs.existsSync(dir)) continue;
    for (const name of fs.readdirSync(dir)) {
      if (HIDDEN_TOOLS.has(name) || fs.existsSync(path.join(target, name))) continue;
      const full = path.join(dir, name);
      try {
        if (!fs.statSync(full).isFile()) continue;
        fs.accessSync(full, fs.constants.X_OK);
      } catch {
        continue;
      }
      fs.symlinkSync(full, path.join(target, name));
    }
  }
  for (const tool of ['node', 'npm', 'npx']) {
    if (!fs.existsSync(path.join(target, tool))) throw new Error(`${tool} is not on PATH`);
  }
}

/** Runs a shell command, echoing its output and returning it. */
function run(command, cwd, env) {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const echo = (stream) => (chunk) => {
      output += chunk;
      stream.write(chunk);
    };
    child.stdout.on('data', echo(process.stdout));
    child.stderr.on('data', echo(process.stderr));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-fresh-'));
const clone = path.join(scratch, 'hermes-memory-ts');
const problems = [];
const times = [];
try {
  const files = copyClone(clone);
  if (fs.existsSync(path.join(clone, '..', 'shared'))) throw new Error('../shared exists beside the copy');
  const bin = path.join(scratch, 'bin');
  systemBin(bin);
  const home = path.join(scratch, 'home');
  fs.mkdirSync(home);

  const globalconfig = execFileSync('npm', ['config', 'get', 'globalconfig'], {
    encoding: 'utf8',
    env: { ...process.env, npm_config_nodedir: undefined, NPM_CONFIG_NODEDIR: undefined },
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
  const env = { PATH: bin, HOME: home, npm_config_prefix: path.join(scratch, 'npm-global') };
  if (fs.existsSync(globalconfig)) env.npm_config_globalconfig = globalconfig;
  for (const key of MACHINE_ENV) if (process.env[key] !== undefined) env[key] = process.env[key];
  log(`${files} files copied to ${clone}; PATH without pnpm, empty HOME, no ../shared`);

  let tests = null;
  for (const [label, command] of [
    ['npm run quickstart', 'npm run quickstart'],
    ['npm test', 'npm test'],
    ...then.map((c) => [c, c]),
  ]) {
    log(`$ ${command}`);
    const t = Date.now();
    const { code, output } = await run(command, clone, env);
    times.push(`${label} ${elapsed(t)}`);
    if (label.startsWith('npm ')) {
      for (const [pattern, what] of NOISE) {
        const line = output.split('\n').find((l) => pattern.test(l));
        if (line) problems.push(`${label} printed ${what}: ${line.trim()}`);
      }
    }
    if (label === 'npm run quickstart' && !/builds SQLite/.test(output)) {
      problems.push('the first install did not say why it takes a minute (native SQLite build)');
    }
    if (label === 'npm test') {
      // The runner's closing line (npm may still print its own update notice after it).
      const closing = output
        .split('\n')
        .filter((l) => /^tests: /.test(l))
        .pop();
      const m = /^tests: (\d+) passed, (\d+) failed/.exec(closing ?? '');
      if (!m) problems.push('npm test printed no closing "tests: N passed, N failed" line');
      else if (m[2] !== '0') problems.push(`npm test: ${closing}`);
      else tests = Number(m[1]);
    }
    if (code !== 0) {
      problems.push(`${label} exited with ${code}`);
      break;
    }
  }
  log(`${times.join(', ')}; total ${elapsed(started)}`);
  if (problems.length > 0) throw new Error(problems.join('\n  '));
  log(`ok — tests: ${tests} passed, 0 failed`);
} catch (error) {
  console.error(`\n[fresh-machine] FAILED:\n  ${error.message}`);
  process.exitCode = 1;
} finally {
  if (keep) console.error(`[fresh-machine] kept ${scratch}`);
  else fs.rmSync(scratch, { recursive: true, force: true });
}
