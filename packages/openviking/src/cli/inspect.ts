import fs from 'node:fs';
import type { ProviderCheck, ProviderCliContext, ProviderStatusReport } from '@hermes-memory/core';
import { listMarkers, markersDir } from '../sessions/markers';
import { openvikingOutboxDir, openvikingTurnsOnDisk } from '../sessions/outbox';
import { runState, runsDir } from '../sessions/run-lock';
import { cliSettings, keyState } from './connection';

/** The provider's lines in `hermes-memory status`: settings and pending sessions, no network. */
export function openvikingStatus(ctx: ProviderCliContext): ProviderStatusReport {
  const settings = cliSettings(ctx);
  const pending = listMarkers(ctx.home);
  return {
    details: {
      endpoint: settings.endpoint || `invalid: ${settings.endpointError}`,
      endpoint_from: settings.sources.endpoint,
      api_key: keyState(settings),
      account: settings.apiKey ? '(from the key)' : settings.account || 'default',
      user: settings.apiKey ? '(from the key)' : settings.user || 'default',
      agent: settings.agent || '(none: user memory)',
      ovcli_profile: settings.ovcli?.path ?? 'not linked',
      auto_start: settings.autoStart,
      pending_sessions: pending.length,
      // Turns an outage or a crash left undelivered (decision 0115): the next agent start posts them.
      waiting_on_disk: openvikingTurnsOnDisk(ctx.home),
    },
  };
}

/** `hermes-memory doctor` lines: settings valid, no orphaned sessions, private state files. */
export async function openvikingChecks(ctx: ProviderCliContext): Promise<ProviderCheck[]> {
  const settings = cliSettings(ctx);
  const checks: ProviderCheck[] = [];
  const problem = settings.endpointError ?? settings.identityError;
  checks.push(
    problem
      ? {
          id: 'settings',
          title: 'OpenViking settings',
          status: 'fail',
          detail: problem,
          fix: 'Set a valid endpoint (OPENVIKING_ENDPOINT or memory.openviking.endpoint): http(s)://host[:port], no credentials, query or fragment.',
        }
      : {
          id: 'settings',
          title: 'OpenViking settings',
          status: 'ok',
          detail: `${settings.endpoint} (from ${settings.sources.endpoint})`,
        },
  );
  for (const warning of settings.warnings)
    checks.push({
      id: 'settings-warning',
      title: 'OpenViking setting ignored',
      status: 'warn',
      detail: warning,
    });
  const waiting = openvikingTurnsOnDisk(ctx.home);
  if (waiting > 0)
    checks.push({
      id: 'outbox',
      title: 'undelivered turns',
      status: 'warn',
      detail: `${waiting} turn(s) from a time OpenViking was unreachable wait on disk (${openvikingOutboxDir(ctx.home)}).`,
      fix: 'Start the agent while the server is reachable: they are posted first.',
    });
  const markers = listMarkers(ctx.home);
  const orphaned = [];
  for (const m of markers)
    if (!m.owner_run_id || (await runState(ctx.home, m.owner_run_id)) === 'dead') orphaned.push(m);
  checks.push(
    orphaned.length === 0
      ? {
          id: 'pending',
          title: 'OpenViking pending sessions',
          status: 'ok',
          detail: `${markers.length} pending, none orphaned`,
        }
      : {
          id: 'pending',
          title: 'OpenViking pending sessions',
          status: 'warn',
          detail: `${orphaned.length} session(s) left uncommitted by a run that ended: ${orphaned.map((m) => m.session_id).join(', ')}`,
          fix: 'Start the agent once with the server reachable: it commits them on start.',
        },
  );
  const loose = [markersDir(ctx.home), runsDir(ctx.home)].filter((dir) => {
    try {
      return (fs.statSync(dir).mode & 0o077) !== 0;
    } catch {
      return false;
    }
  });
  if (loose.length > 0)
    checks.push({
      id: 'permissions',
      title: 'OpenViking state folders',
      status: 'warn',
      detail: `readable by others: ${loose.join(', ')}`,
      fix: `chmod 700 ${loose.join(' ')}`,
    });
  return checks;
}
