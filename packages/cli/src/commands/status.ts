import fs from 'node:fs';
import { type HermesConfig, loadHermesConfig } from '@hermes-memory/core';
import type { Command } from '../command';
import { parseCommandArgs } from '../context';
import { CliError } from '../errors';
import { factsDbPath } from '../facts-store';
import { formatBytes, table } from '../format';
import { fileInfo, homePaths, sqliteSize } from '../paths';
import { openRawDb } from '../portable';
import { applyHomeEnv, loadProvider } from '../providers';
import { openMemoryStore } from '../stores';

const USAGE = `Usage: hermes-memory status [--json]

Show the configured memory provider (and why it is unavailable, if it is), every store's path and
size, and how full MEMORY.md and USER.md are.`;

interface StoreStatus {
  name: string;
  path: string;
  exists: boolean;
  bytes: number;
  detail: string;
}

export const statusCommand: Command = {
  name: 'status',
  summary: 'provider, availability, store paths and sizes, memory usage',
  usage: USAGE,
  async run(ctx, argv) {
    const { positionals } = parseCommandArgs(argv, {}, 'status');
    if (positionals.length > 0) throw new CliError('status takes no arguments.', { exitCode: 2 });
    const config: HermesConfig = loadHermesConfig(ctx.home);
    const m = config.memory;

    const provider = await providerStatus(ctx.home, m.provider, ctx.io.env, ctx.io.cwd);
    const hasMemories = fs.existsSync(homePaths(ctx.home).memoriesDir);
    const store = hasMemories ? openMemoryStore(ctx.home) : undefined;
    const usage = (['memory', 'user'] as const).map((target) => {
      const u = store?.usage(target) ?? {
        current: 0,
        limit: target === 'memory' ? m.memoryCharLimit : m.userCharLimit,
      };
      return {
        target,
        entries: store?.entries(target).length ?? 0,
        chars: u.current,
        limit: u.limit,
        percent: u.limit > 0 ? Math.min(100, Math.floor((u.current / u.limit) * 100)) : 0,
      };
    });
    const p = homePaths(ctx.home);
    const stores: StoreStatus[] = [
      fileStore('MEMORY.md', p.memory, `${usage[0]!.entries} entries`),
      fileStore('USER.md', p.user, `${usage[1]!.entries} entries`),
      dbStore('state.db', p.stateDb, [
        ['sessions', 'SELECT COUNT(*) AS n FROM sessions'],
        ['messages', 'SELECT COUNT(*) AS n FROM messages'],
      ]),
      dbStore('memory_store.db', factsDbPath(ctx.home), [['facts', 'SELECT COUNT(*) AS n FROM facts']]),
      fileStore('config.yaml', p.config, ''),
      fileStore('.env', p.env, ''),
    ];

    if (ctx.json) {
      ctx.printJson({
        home: ctx.home,
        homeSource: ctx.homeSource,
        config: {
          memoryEnabled: m.memoryEnabled,
          userProfileEnabled: m.userProfileEnabled,
          memoryCharLimit: m.memoryCharLimit,
          userCharLimit: m.userCharLimit,
        },
        provider,
        usage,
        stores,
      });
      return 0;
    }
    const s = ctx.style;
    const yes = (b: boolean) => (b ? s.green('✓') : s.red('✗'));
    ctx.out(s.bold('Hermes memory status'));
    ctx.out(
      `  home       ${ctx.home} ${s.gray(`(${ctx.homeSource === 'flag' ? '--home' : ctx.homeSource === 'env' ? 'HERMES_HOME' : 'default'})`)}`,
    );
    ctx.out(`  built-in   memory ${yes(m.memoryEnabled)}  user profile ${yes(m.userProfileEnabled)}`);
    if (!provider.name) ctx.out(`  provider   ${s.gray('(none — built-in only)')}`);
    else {
      ctx.out(
        `  provider   ${s.bold(provider.name)}  installed ${yes(provider.installed)}  available ${yes(provider.available)}`,
      );
      if (provider.reason) ctx.out(`             ${s.yellow(provider.reason)}`);
    }
    ctx.out();
    ctx.out(s.bold('Memory usage'));
    for (const u of usage) {
      const bar = usageBar(u.percent, s);
      ctx.out(
        `  ${(u.target === 'memory' ? 'MEMORY.md' : 'USER.md').padEnd(10)} ${bar} ${String(u.percent).padStart(3)}%  ${s.gray(`${u.chars.toLocaleString('en-US')}/${u.limit.toLocaleString('en-US')} chars, ${u.entries} entries`)}`,
      );
    }
    ctx.out();
    ctx.out(s.bold('Stores'));
    ctx.out(
      table(
        stores.map((st) => [
          st.name,
          st.exists ? formatBytes(st.bytes).padStart(8) : s.gray('     -  '),
          st.exists ? st.detail : s.gray('not created yet'),
          s.gray(st.path),
        ]),
        { indent: '  ' },
      ),
    );
    return 0;
  },
};

function usageBar(
  percent: number,
  s: { green(t: string): string; yellow(t: string): string; red(t: string): string; gray(t: string): string },
): string {
  const width = 20;
  const filled = Math.round((percent / 100) * width);
  const colour = percent >= 90 ? s.red : percent >= 70 ? s.yellow : s.green;
  return colour('█'.repeat(filled)) + s.gray('░'.repeat(width - filled));
}

async function providerStatus(
  home: string,
  name: string,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
) {
  if (!name) return { name: '', installed: true, available: true, reason: '' };
  try {
    const { provider } = await loadProvider(name, cwd);
    applyHomeEnv(home, env);
    const available = provider.isAvailable();
    return {
      name,
      installed: true,
      available,
      reason: available ? '' : provider.unavailableReason() || 'not available',
    };
  } catch (error) {
    return {
      name,
      installed: false,
      available: false,
      reason: error instanceof Error ? error.message : String(error),
    };
  }
}

function fileStore(name: string, file: string, detail: string): StoreStatus {
  const info = fileInfo(file);
  return { name, path: file, exists: info.exists, bytes: info.size, detail };
}

function dbStore(name: string, file: string, counts: Array<[string, string]>): StoreStatus {
  if (!fs.existsSync(file)) return { name, path: file, exists: false, bytes: 0, detail: '' };
  let detail: string;
  try {
    const db = openRawDb(file, { readonly: true });
    try {
      detail = counts
        .map(([label, sql]) => {
          try {
            return `${(db.prepare(sql).get() as { n: number }).n} ${label}`;
          } catch {
            return `? ${label}`;
          }
        })
        .join(', ');
    } finally {
      db.close();
    }
  } catch (error) {
    detail = `unreadable: ${error instanceof Error ? error.message : String(error)}`;
  }
  return { name, path: file, exists: true, bytes: sqliteSize(file), detail };
}
