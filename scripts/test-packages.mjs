#!/usr/bin/env node
// Runs each workspace package's tests on its own (the per-backend CI matrix, locally) and prints a
// summary table, one row per package, then one closing line: "tests: N passed, N failed".
// Usage: node scripts/test-packages.mjs [id ...]   (ids are folder names under packages/ or examples/)
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runPnpm } from './pnpm.mjs';
import { workspacePackages } from './workspace.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const only = new Set(process.argv.slice(2));

const packages = workspacePackages(root).filter(
  (p) => p.manifest.scripts?.test && (only.size === 0 || only.has(p.id)),
);
const unknown = [...only].filter((id) => !packages.some((p) => p.id === id));
if (unknown.length > 0) {
  console.error(`test-packages: no package with tests named ${unknown.join(', ')} (ids are folder names)`);
  process.exit(2);
}
const outDir = mkdtempSync(path.join(os.tmpdir(), 'hm-tests-'));

const rows = [];
for (const pkg of packages) {
  const report = path.join(outDir, `${pkg.id}.json`);
  const started = Date.now();
  console.log(`\n━━ ${pkg.manifest.name} ━━`);
  const result = runPnpm(
    ['exec', 'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`],
    { cwd: pkg.dir, stdio: 'inherit' },
  );
  if (result.error) console.error(`${pkg.manifest.name}: ${result.error.message}`);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let files = 0;
  if (existsSync(report)) {
    const json = JSON.parse(readFileSync(report, 'utf8'));
    passed = json.numPassedTests ?? 0;
    failed = json.numFailedTests ?? 0;
    skipped = (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0);
    files = json.numTotalTestSuites ?? json.testResults?.length ?? 0;
  }
  // A crashed run (no report, or a non-zero exit with no failing test) still counts as a failure.
  const ok = result.status === 0 && failed === 0 && passed > 0;
  if (!ok && failed === 0) failed = 1;
  rows.push({ name: pkg.manifest.name, files, passed, failed, skipped, seconds, ok });
}
rmSync(outDir, { recursive: true, force: true });

const header = ['package', 'suites', 'passed', 'failed', 'skipped', 'time (s)', 'result'];
const table = rows.map((r) =>
  [r.name, r.files, r.passed, r.failed, r.skipped, r.seconds, r.ok ? 'ok' : 'FAIL'].map(String),
);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i].length)));
const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
console.log(`\n${line(header)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const row of table) console.log(line(row));

const total = rows.reduce(
  (acc, r) => ({
    passed: acc.passed + r.passed,
    failed: acc.failed + r.failed,
    skipped: acc.skipped + r.skipped,
  }),
  { passed: 0, failed: 0, skipped: 0 },
);
const failedPackages = rows.filter((r) => !r.ok).map((r) => r.name);
if (failedPackages.length > 0) console.log(`\nFailing packages: ${failedPackages.join(', ')}`);
console.log(
  `\ntests: ${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ''}`,
);
process.exit(failedPackages.length > 0 ? 1 : 0);
