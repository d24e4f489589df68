import fs from 'node:fs';
import path from 'node:path';
import {
  type ProviderCheck,
  type ProviderCliContext,
  type ProviderStatusReport,
  privateFilesCheck,
} from '@hermes-memory/core';
import { openStore, storePath } from './store-file';

/** The provider's row in the Stores table of `hermes-memory status`. No network, no writes. */
export async function storeStatus(ctx: ProviderCliContext): Promise<ProviderStatusReport> {
  const file = storePath(ctx);
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  const { store } = await openStore(ctx);
  return {
    stores: [
      {
        name: 'template memory',
        path: file,
        exists: stat !== undefined,
        bytes: stat?.size ?? 0,
        detail: `${store.size} ${store.size === 1 ? 'entry' : 'entries'}`,
      },
    ],
  };
}

/**
 * `hermes-memory doctor` lines: the file is private and every line replays. A torn last line (an interrupted append) is cut off by `doctor --fix`, as the provider
 * itself does at its next start; unreadable lines in the middle are reported and left in place.
 */
export async function storeChecks(ctx: ProviderCliContext): Promise<ProviderCheck[]> {
  const file = storePath(ctx);
  const name = path.basename(file);
  const { report } = await openStore(ctx);
  const title = 'Template memory file';
  const problems = [
    report.corruptLines > 0 ? `${report.corruptLines} unreadable line(s), skipped` : '',
    report.tornTail ? 'a torn last line from an interrupted write' : '',
  ].filter(Boolean);
  const integrity: ProviderCheck =
    problems.length === 0
      ? { id: 'integrity', title, status: 'ok', detail: `${report.entries} entries replay cleanly` }
      : {
          id: 'integrity',
          title,
          status: 'warn',
          detail: `${name}: ${problems.join('; ')}`,
          fix: report.tornTail
            ? 'hermes-memory doctor --fix (cuts the torn line; the provider does the same when it starts)'
            : `Unreadable lines are kept for you to inspect in ${file}; the provider skips them.`,
          ...(report.tornTail
            ? {
                async repair() {
                  await openStore(ctx, { repair: true });
                  return `cut the torn last line of ${name}`;
                },
              }
            : {}),
        };
  return [
    integrity,
    privateFilesCheck({
      id: 'permissions',
      title: 'Template memory file permissions',
      files: [file],
      home: ctx.home,
      okDetail: `${name} is private`,
    }),
  ];
}
