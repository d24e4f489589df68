import os from 'node:os';
import path from 'node:path';

/** Expand a leading "~" the way a shell would; Node leaves it alone. */
export function expandHome(p: string): string {
  if (p === '~') return os.homedir();
  if (p.startsWith('~/') || p.startsWith('~\\')) return path.join(os.homedir(), p.slice(2));
  return p;
}

/**
 * The profile root: `HERMES_HOME` when set (a leading "~" is expanded, relative paths are
 * resolved against the working directory), else `~/.hermes` — the Python agent's default, so both
 * share one home.
 */
export function resolveHermesHome(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const configured = env.HERMES_HOME?.trim();
  if (configured) return path.resolve(expandHome(configured));
  return path.join(os.homedir(), '.hermes');
}
