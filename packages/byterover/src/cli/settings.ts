import fs from 'node:fs';
import path from 'node:path';
import { describeError, type ProviderCliContext, SettingsError } from '@hermes-memory/core';
import { ByteroverProvider } from '../byterover-provider';

/**
 * The provider as the agent would create it in this home (settings from `memory.byterover`, the
 * environment and `<home>/.env`; brv resolved the same way), without initialising it. An invalid
 * setting is reported, not thrown.
 */
export function providerForHome(
  ctx: Pick<ProviderCliContext, 'providerConfig' | 'env' | 'home'>,
): { provider: ByteroverProvider } | { problem: string } {
  try {
    return {
      provider: new ByteroverProvider(
        {},
        { env: ctx.env, providerConfig: ctx.providerConfig, hermesHome: ctx.home },
      ),
    };
  } catch (error) {
    return { problem: SettingsError.isInstance(error) ? error.message : describeError(error) };
  }
}

/** Markdown documents and bytes under a project's context tree (no brv needed). */
export function treeStats(workdir: string): {
  exists: boolean;
  documents: number;
  bytes: number;
  path: string;
} {
  const root = path.join(workdir, '.brv', 'context-tree');
  let documents = 0;
  let bytes = 0;
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && entry.name.endsWith('.md')) {
        documents += 1;
        bytes += fs.statSync(full).size;
      }
    }
  };
  try {
    walk(root);
    return { exists: true, documents, bytes, path: root };
  } catch {
    return { exists: false, documents: 0, bytes: 0, path: root };
  }
}
