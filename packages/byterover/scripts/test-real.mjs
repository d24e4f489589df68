#!/usr/bin/env node
/**
 * pnpm --filter @hermes-memory/byterover test:real
 *
 * The integration suite against the real byterover-cli, offline. byterover-cli is large (~711 MB,
 * ~70 s to install) so it is never a workspace dependency: it is installed here, once, into a cache
 * outside the repository ($HERMES_MEMORY_CACHE, default ~/.cache/hermes-memory), with
 * `npm install --ignore-scripts` (its GitHub dependencies are bundled, so only the npm registry is
 * needed). Then the same contract cases the default suite runs against the fake brv run against it
 * (src/contract/real-brv.contract.test.ts), with HERMES_MEMORY_REAL_BRV pointing at its brv.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const VERSION = '3.14.0';
const here = path.dirname(fileURLToPath(import.meta.url));
const cacheRoot =
  process.env.HERMES_MEMORY_CACHE ??
  path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'hermes-memory');
const dir = path.join(cacheRoot, `byterover-cli-${VERSION}`);
const brv = path.join(dir, 'node_modules', '.bin', 'brv');

if (!fs.existsSync(brv)) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"hermes-memory-brv-cache","private":true}\n');
  console.log(`test:real: installing byterover-cli@${VERSION} into ${dir} (about 711 MB, a minute or two)…`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const install = spawnSync(
    npm,
    ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--no-save', `byterover-cli@${VERSION}`],
    { cwd: dir, stdio: 'inherit' },
  );
  if (install.status !== 0 || !fs.existsSync(brv)) {
    console.error(`test:real: installing byterover-cli@${VERSION} failed (exit ${install.status}).`);
    process.exit(1);
  }
}
console.log(`test:real: running the brv contract against ${brv}`);
const vitest = spawnSync(
  'pnpm',
  ['exec', 'vitest', 'run', 'src/contract/real-brv.contract.test.ts', ...process.argv.slice(2)],
  {
    cwd: path.join(here, '..'),
    stdio: 'inherit',
    env: { ...process.env, HERMES_MEMORY_REAL_BRV: brv },
  },
);
process.exit(vitest.status ?? 1);
