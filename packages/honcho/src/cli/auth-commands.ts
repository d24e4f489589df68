/**
 * `hermes-memory honcho login` and `logout`: the reference's OAuth sign-in. The device flow is the
 * default (a code to enter in any browser, this machine's or another's); `--browser` runs the
 * loopback flow (PKCE, a one-shot listener on 127.0.0.1). The grant lands in this profile's host
 * block of `$HERMES_HOME/honcho.json` (atomic, 0600, every other block kept). Tokens are never
 * printed: the credential is named by a fingerprint.
 */
import os from 'node:os';
import path from 'node:path';
import {
  type Clock,
  openInBrowser,
  type ProviderCliContext,
  type ProviderCommand,
  systemClock,
} from '@hermes-memory/core';
import { credentialFingerprint, type OAuthCredential } from '../auth/credential';
import { resolveOAuthEndpoints } from '../auth/endpoints';
import { installGrant, pollDeviceToken, requestDeviceCode, startBrowserSignIn } from '../auth/flows';
import { removeCredential } from '../auth/store';
import { loadConfig, openHonchoFile, saveHonchoFile } from './honcho-file';
import { testConnection } from './service-commands';

export interface AuthCommandOptions {
  /** Drives the device flow's polling and the browser flow's timeout (tests pass a `ManualClock`). */
  clock?: Clock;
  /** Opens the browser flow's URL (default: the system's opener; `--no-open` skips it). */
  openUrl?: (url: string) => void | Promise<void>;
}

/** How the consent page names the file: home-relative, never an absolute path off this machine. */
function displayPath(file: string): string {
  const relative = path.relative(os.homedir(), file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative)
    ? `~/${relative.split(path.sep).join('/')}`
    : path.basename(file);
}

function signedIn(
  ctx: ProviderCliContext,
  file: string,
  host: string,
  credential: OAuthCredential,
  how: string,
) {
  const fingerprint = credentialFingerprint(credential.refreshToken);
  return {
    lines: [
      `${ctx.style.green('✓')} Signed in to Honcho (${how}) as host '${host}'; sign-in ${fingerprint} saved to ${file}.`,
    ],
    json: {
      signedIn: true,
      method: how,
      host,
      file,
      credential: { type: 'oauth', fingerprint, expiresAt: new Date(credential.expiresAt).toISOString() },
    },
  };
}

function loginCommand(options: AuthCommandOptions): ProviderCommand {
  return {
    name: 'login',
    summary: "sign in to Honcho with OAuth (device code by default; --browser for this machine's browser)",
    usage:
      'Usage: hermes-memory honcho login [--browser] [--no-open]\n\n' +
      'Default: shows a code to enter at the Honcho dashboard, from any browser (works over SSH).\n' +
      "--browser   sign in with this machine's browser (a one-shot listener on 127.0.0.1)\n" +
      '--no-open   with --browser: print the sign-in URL instead of opening a browser\n\n' +
      "The sign-in is saved in this profile's host block of honcho.json and refreshed as it expires.\n" +
      'Endpoints: HONCHO_OAUTH_DASHBOARD, HONCHO_OAUTH_AUTHORIZE_URL, HONCHO_OAUTH_TOKEN_URL,\n' +
      'HONCHO_OAUTH_DEVICE_AUTH_URL, HONCHO_OAUTH_CLIENT_ID (hermes-agent), HONCHO_OAUTH_SCOPE (write).',
    async run(ctx, argv) {
      const { values } = ctx.parseArgs(argv, {
        browser: { type: 'boolean' },
        'no-open': { type: 'boolean' },
      });
      const clock = options.clock ?? systemClock;
      const file = openHonchoFile(ctx); // refuses a corrupt file before anything is asked
      const config = loadConfig(ctx);
      const endpoints = resolveOAuthEndpoints({
        env: ctx.env,
        environment: config.environment,
        baseUrl: config.baseUrl,
      });
      const flow = { clock, signal: ctx.signal, source: 'hermes-cli' };
      let grant: Record<string, unknown>;
      let how: string;
      if (values.browser) {
        how = 'browser';
        const signIn = await startBrowserSignIn(endpoints, {
          ...flow,
          configPathLabel: displayPath(file.writePath),
        });
        try {
          ctx.err(`Sign in to Honcho in your browser. If it does not open, visit:\n  ${signIn.authorizeUrl}`);
          if (!values['no-open']) await (options.openUrl ?? openInBrowser)(signIn.authorizeUrl);
          grant = await signIn.result;
        } finally {
          signIn.close();
        }
      } else {
        how = 'device code';
        const device = await requestDeviceCode(endpoints, flow);
        ctx.err(
          `To sign in to Honcho, open ${device.verificationUri} and enter the code ${device.userCode}\n` +
            `  (or open ${device.verificationUriComplete}). Waiting for approval…`,
        );
        grant = await pollDeviceToken(endpoints, device, flow);
      }
      // A profile whose settings live in another file (~/.honcho/config.json) gets its own copy first.
      if (file.readPath !== file.writePath) saveHonchoFile(file);
      const credential = installGrant(file.writePath, file.host, grant, endpoints, { nowMs: clock.now() });
      const done = signedIn(ctx, file.writePath, file.host, credential, how);
      const check = await testConnection(ctx, loadConfig(ctx));
      if (ctx.json) ctx.printJson({ ...done.json, connection: check });
      else {
        for (const line of done.lines) ctx.out(line);
        ctx.out(
          check.status === 'ok'
            ? `  ${check.message}`
            : `  connection test: ${check.status} — ${check.message}`,
        );
      }
      return check.status === 'failed' ? 1 : 0;
    },
  };
}

const logout: ProviderCommand = {
  name: 'logout',
  summary: "remove this profile's Honcho OAuth sign-in from honcho.json",
  usage: 'Usage: hermes-memory honcho logout',
  async run(ctx, argv) {
    ctx.parseArgs(argv, {});
    const file = openHonchoFile(ctx);
    const target = file.readPath ?? file.writePath;
    const removed = file.readPath ? removeCredential(target, file.host) : false;
    if (ctx.json) ctx.printJson({ signedOut: removed, host: file.host, file: target });
    else
      ctx.out(
        removed
          ? `Signed out: the OAuth sign-in of host '${file.host}' was removed from ${target}.`
          : `No OAuth sign-in for host '${file.host}' in ${target}.`,
      );
    return 0;
  },
};

export function authCommands(options: AuthCommandOptions = {}): ProviderCommand[] {
  return [loginCommand(options), logout];
}
