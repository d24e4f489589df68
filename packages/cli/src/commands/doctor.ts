import type { Command } from '../command';
import { parseCommandArgs } from '../context';
import {
  type CheckResult,
  checkConfig,
  checkDatabases,
  checkHome,
  checkLocks,
  checkNode,
  checkPermissions,
  checkSqlite,
  checkSymlinks,
  loadSqlite,
} from '../doctor/checks';
import { checkLockMechanism, checkMemoryFiles, checkProvider } from '../doctor/memory-checks';
import { checkProviderContributions } from '../doctor/provider-checks';

const USAGE = `Usage: hermes-memory doctor [--fix] [--json]

Check the installation and the HERMES_HOME: better-sqlite3 loads, FTS5 is available, config.yaml
parses, the configured provider loads, is available and answers its connection probe, memory files are private (0600) and within
their limits, no stale lock files (a lock is stale only when its holder process is gone), no
symbolic links where memory refuses them, state.db passes PRAGMA integrity_check, and each
provider's own checks (the active one's, and those of providers that keep data in the home: their
stores' permissions and integrity).
Exits 1 when something is wrong, and says how to fix it.

Options:
  --fix   repair what can be repaired safely (tighten permissions, remove locks whose holder is
          gone and temp files of interrupted writes; links are reported, never removed)`;

export const doctorCommand: Command = {
  name: 'doctor',
  usage: USAGE,
  async run(ctx, argv) {
    const { values } = parseCommandArgs(argv, { fix: { type: 'boolean' } }, 'doctor');
    const sqlite = loadSqlite();
    const results: CheckResult[] = [
      checkNode(),
      ...checkSqlite(sqlite),
      checkHome(ctx.home),
      checkConfig(ctx.home),
      ...(await checkProvider(ctx.home, ctx.io.env, ctx.io.cwd, ctx.signal)),
      ...checkMemoryFiles(ctx.home),
      await checkLockMechanism(),
      checkPermissions(ctx.home),
      checkLocks(ctx.home),
      checkSymlinks(ctx.home),
      ...checkDatabases(ctx.home, sqlite),
      ...(await checkProviderContributions(ctx)),
    ];
    const repaired: string[] = [];
    if (values.fix) {
      for (const r of results) {
        if (r.status === 'fail' && r.repair) {
          try {
            repaired.push(`${r.title}: ${await r.repair()}`);
            r.status = 'ok';
            r.detail = `repaired (${r.detail})`;
          } catch (error) {
            r.detail += ` — repair failed: ${error instanceof Error ? error.message : String(error)}`;
          }
        }
      }
    }
    const failures = results.filter((r) => r.status === 'fail').length;
    const warnings = results.filter((r) => r.status === 'warn').length;

    if (ctx.json) {
      ctx.printJson({
        ok: failures === 0,
        home: ctx.home,
        checks: results.map(({ repair: _r, ...rest }) => rest),
        repaired,
      });
      return failures === 0 ? 0 : 1;
    }
    const s = ctx.style;
    const mark = { ok: s.green('✓'), warn: s.yellow('!'), fail: s.red('✗'), skip: s.gray('-') } as const;
    ctx.out(s.bold(`hermes-memory doctor`) + s.gray(`  ${ctx.home}`));
    ctx.out();
    for (const r of results) {
      ctx.out(`  ${mark[r.status]} ${r.title}: ${r.status === 'ok' ? s.gray(r.detail) : r.detail}`);
      if (r.fix && (r.status === 'fail' || r.status === 'warn')) ctx.out(`      ${s.cyan('fix:')} ${r.fix}`);
    }
    for (const line of repaired) ctx.out(`  ${s.green('repaired')} ${line}`);
    ctx.out();
    if (failures === 0)
      ctx.out(
        s.green(`All checks passed${warnings ? ` (${warnings} warning${warnings > 1 ? 's' : ''})` : ''}.`),
      );
    else
      ctx.out(
        s.red(`${failures} problem${failures > 1 ? 's' : ''} found.`) +
          (!values.fix && results.some((r) => r.status === 'fail' && r.repair)
            ? ' Run with --fix to repair what can be repaired.'
            : ''),
      );
    return failures === 0 ? 0 : 1;
  },
};
