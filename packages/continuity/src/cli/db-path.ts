import type { ProviderCliContext } from '@hermes-memory/core';
import { type ContinuitySettings, defaultDbPath, expandDbPath } from '../settings';
import type { CliContext } from './commands';

/**
 * Where `continuity.db` lives for CLI commands: `db_path` from `memory.continuity` (with
 * `$HERMES_HOME` and `~` expanded), else `<home>/continuity/continuity.db`. Read on its own, so
 * status and doctor still find the store when another setting is invalid.
 */
export function continuityDbPath(ctx: Pick<ProviderCliContext, 'home' | 'providerConfig'>): string {
  const configured = ctx.providerConfig.db_path ?? ctx.providerConfig.dbPath;
  return typeof configured === 'string' && configured.trim()
    ? expandDbPath(configured.trim(), ctx.home)
    : defaultDbPath(ctx.home);
}

/** The command functions' context from the seam's: the home and `memory.continuity` as written. */
export function storeContext(ctx: Pick<ProviderCliContext, 'home' | 'providerConfig'>): CliContext {
  return { hermesHome: ctx.home, settings: ctx.providerConfig as ContinuitySettings };
}
