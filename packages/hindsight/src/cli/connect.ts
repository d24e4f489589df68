/**
 * `hermes-memory hindsight connect`: the reference's browser "Connect" flow (`oauth_flow.py`). No
 * OAuth: the Hindsight UI, where the user is signed in, mints an API key and hands it back over a
 * loopback redirect (core's `listenForLoopbackCallback`). The key must carry our state and start
 * with `hsk_`; it is stored as `apiKey` in `hindsight/config.json` (0600), with the API URL of the
 * environment it was minted in (ui.… → api.…), and never printed.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import {
  type Clock,
  listenForLoopbackCallback,
  openInBrowser,
  type ProviderCliContext,
  type ProviderCommand,
} from '@hermes-memory/core';
import { profileConfigPath, saveConnectedKey } from '../config';
import { cliSetup, testConnection } from './connection';

export const DEFAULT_CONNECT_URL = 'https://ui.hindsight.vectorize.io/connect/desktop';
const KEY_PREFIX = 'hsk_';

export interface ConnectOptions {
  /** Opens the connect URL (default: the system browser; `--no-open` skips it). */
  openUrl?: (url: string) => void | Promise<void>;
  /** Drives the wait's timeout (tests pass a `ManualClock`). */
  clock?: Clock;
}

type Env = Readonly<Record<string, string | undefined>>;

/** The UI's /connect/desktop route (`HINDSIGHT_CONNECT_URL` for dev, self-hosted and tests). */
export function connectUrl(env: Env): string {
  return (env.HINDSIGHT_CONNECT_URL?.trim() || DEFAULT_CONNECT_URL).replace(/\/+$/, '');
}

/**
 * The API of the environment the key is minted in (a key from one against another's URL fails with
 * 401): `HINDSIGHT_API_URL` when set, else the connect host with its leading `ui.` swapped for
 * `api.`; null for hosts that do not follow that convention (the configured URL is kept).
 */
export function connectedApiUrl(env: Env): string | null {
  const override = env.HINDSIGHT_API_URL?.trim();
  if (override) return override.replace(/\/+$/, '');
  const url = new URL(connectUrl(env));
  return url.hostname.startsWith('ui.') ? `${url.protocol}//api.${url.host.slice('ui.'.length)}` : null;
}

const USAGE =
  'Usage: hermes-memory hindsight connect [--no-open]\n\n' +
  "Opens the Hindsight UI in this machine's browser; it creates an API key and hands it back to a\n" +
  'one-shot listener on 127.0.0.1. The key is saved as apiKey in hindsight/config.json (0600).\n' +
  '--no-open   print the URL instead of opening a browser\n' +
  'Environment: HINDSIGHT_CONNECT_URL (the UI route), HINDSIGHT_API_URL (the API the key is for).';

export function createConnectCommand(options: ConnectOptions = {}): ProviderCommand {
  return {
    name: 'connect',
    summary: "get an API key from the Hindsight UI in this machine's browser and save it",
    usage: USAGE,
    run: (ctx, argv) => connect(ctx, argv, options),
  };
}

async function connect(ctx: ProviderCliContext, argv: readonly string[], options: ConnectOptions) {
  const { values } = ctx.parseArgs(argv, { 'no-open': { type: 'boolean' } });
  const state = randomBytes(32).toString('base64url');
  const callback = await listenForLoopbackCallback({
    state,
    label: 'Hindsight connect',
    respond(params) {
      const denied = params.get('error');
      if (denied)
        return {
          title: 'Hindsight connect failed',
          text: 'Hindsight was not connected. You can close this tab.',
          error: ctx.fail(`Hindsight connect was denied: ${denied.slice(0, 100)}.`),
        };
      if (!params.get('key')?.startsWith(KEY_PREFIX))
        return {
          title: 'Hindsight connect failed',
          text: 'The answer did not hold a Hindsight API key. You can close this tab.',
          error: ctx.fail('Hindsight connect returned an unexpected credential (not a Hindsight API key).'),
        };
      return {
        title: 'Hindsight connected',
        text: 'Connected to Hindsight. You can close this tab and return to Hermes.',
      };
    },
    ...(options.clock ? { clock: options.clock } : {}),
    signal: ctx.signal,
  });
  let key: string;
  try {
    const query = new URLSearchParams({
      port: String(callback.port),
      state,
      source: 'hermes-cli',
      host: os.hostname(),
    });
    const url = `${connectUrl(ctx.env)}?${query}`;
    ctx.err(`Connect Hindsight in your browser. If it does not open, visit:\n  ${url}`);
    if (values['no-open'] !== true) await (options.openUrl ?? openInBrowser)(url);
    key = (await callback.result).get('key') ?? '';
  } finally {
    callback.close();
  }
  const apiURL = connectedApiUrl(ctx.env);
  saveConnectedKey(ctx.home, key, apiURL);
  const file = profileConfigPath(ctx.home);
  // What the agent will use now: config.json holds the key (its source wins over .env's).
  const report = await testConnection(ctx, cliSetup(ctx));
  const saved = `Hindsight API key saved to ${file}${apiURL ? ` (api_url ${apiURL})` : ''}.`;
  if (ctx.json)
    ctx.printJson({ connected: true, file, ...(apiURL ? { api_url: apiURL } : {}), connection: report });
  else {
    ctx.out(`${ctx.style.green('✓')} ${saved}`);
    ctx.out(report.ok ? ctx.style.green(report.summary) : ctx.style.red(report.summary));
  }
  return report.ok ? 0 : 1;
}
