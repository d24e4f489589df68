import type { ProviderCliContext } from '@hermes-memory/core';
import { expandDbPath } from '../settings';

/**
 * Where the fact store lives for CLI commands: `db_path` from holographic's settings (the Python
 * plugin's `plugins.hermes-memory-store` first, then `memory.holographic`, as the provider reads
 * them), with `$HERMES_HOME` / `${HERMES_HOME}` and `~` expanded; else `<home>/memory_store.db`.
 */
export function factsDbPath(ctx: Pick<ProviderCliContext, 'home' | 'providerConfig'>): string {
  const configured = ctx.providerConfig.db_path;
  return expandDbPath(
    typeof configured === 'string' && configured.trim() ? configured.trim() : '$HERMES_HOME/memory_store.db',
    ctx.home,
  );
}
