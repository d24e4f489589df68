/**
 * `hermes-memory hivemind setup`: the reference's account flow as flags — register on the
 * homeserver with a registration token (two-step UIA), or log in, or take an existing access
 * token — plus the notebook, then a connection test. Secrets come from stdin only, one per line.
 */
import { readFileSync } from 'node:fs';
import {
  describeError,
  type ProviderCliContext,
  type ProviderCommand,
  saveConfigValues,
  writeEnvValues,
} from '@hermes-memory/core';
import { HivemindProvider } from '../hivemind-provider';
import { login, registerOrLogin } from '../matrix/account';
import { MatrixClient } from '../matrix/client';
import { isUserId } from '../matrix/types';
import { roleOf, settingsFor } from './inspect';

const USAGE = `Usage: hermes-memory hivemind setup [--homeserver <url>] [--user <name|@name:server>]
         [--password-stdin [--register] | --access-token-stdin]
         [--notebook-url <url|none>] [--notebook-key-stdin] [--no-enable] [--no-test]

Connects this agent to a Matrix homeserver (and, optionally, the shared Hermes notebook):
  --password-stdin       log in with the account's password (a new device and access token);
  --register             create the account first (Continuwuity/Synapse registration token);
                         an account that exists already is logged in to instead
  --access-token-stdin   use an access token you already have (checked with whoami)
  --notebook-url <url>   search this notebook with each message ('none' removes it)
  --notebook-key-stdin   the notebook's secret key (entries show their text only with it)
  --no-enable            do not add hivemind to memory.secondary in config.yaml
  --no-test              skip the connection test

Secrets are read from stdin, never from the command line, one per line in this order: the
password or the access token, the registration token (--register), the notebook key. Example:
  printf '%s\\n%s\\n' "$PASSWORD" "$REGISTRATION_TOKEN" | \\
    hermes-memory hivemind setup --homeserver https://matrix.example.org --user hermes-of-bob --password-stdin --register

Saves homeserver, user_id and notebook_url under memory.hivemind in config.yaml and the access
token (MATRIX_ACCESS_TOKEN) and notebook key (HERMES_SECRET_KEY) in $HERMES_HOME/.env, both
written atomically with mode 0600. The password is used once and never stored.`;

const FLAGS = {
  homeserver: { type: 'string' },
  user: { type: 'string' },
  'password-stdin': { type: 'boolean' },
  register: { type: 'boolean' },
  'access-token-stdin': { type: 'boolean' },
  'notebook-url': { type: 'string' },
  'notebook-key-stdin': { type: 'boolean' },
  'no-enable': { type: 'boolean' },
  'no-test': { type: 'boolean' },
} as const;

/** The named secrets from stdin, one non-empty line each, in order; a missing one is a usage error. */
function readSecrets(ctx: ProviderCliContext, names: readonly string[], readStdin: () => string): string[] {
  if (names.length === 0) return [];
  if (process.stdin.isTTY)
    ctx.err(`Reading ${names.join(', then ')} from stdin (one per line; end with Ctrl-D).`);
  const lines = readStdin()
    .split(/\r?\n/)
    .map((l) => l.trim());
  return names.map((name, i) => {
    const value = lines[i] ?? '';
    if (value === '') throw ctx.usageError(`stdin line ${i + 1} should hold the ${name}, and it is empty.`);
    return value;
  });
}

function httpUrl(ctx: ProviderCliContext, flag: string, value: string): string {
  const url = value.trim().replace(/\/+$/, '');
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return url;
  } catch {}
  throw ctx.usageError(`--${flag} must be an http(s) URL, got '${value}'.`);
}

/** `memory.secondary` with hivemind appended, in the shape the file has (list or comma string). */
function withHivemind(ctx: ProviderCliContext): unknown[] {
  const raw = (ctx.config.raw.memory as { secondary?: unknown } | undefined)?.secondary;
  const list: unknown[] = Array.isArray(raw)
    ? [...raw]
    : typeof raw === 'string'
      ? raw
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : [];
  return [...list, 'hivemind'];
}

/** The setup command, reading secrets with `readStdin` (tests hand it a string). */
export function createSetupCommand(readStdin: () => string = () => readFileSync(0, 'utf8')): ProviderCommand {
  return {
    name: 'setup',
    summary: 'connect to a homeserver (register, log in or a token) and the notebook, then test',
    usage: USAGE,
    async run(ctx, argv) {
      const { values, positionals } = ctx.parseArgs(argv, FLAGS);
      if (positionals.length > 0) throw ctx.usageError(`Unexpected argument '${positionals[0]}'.`);
      const byPassword = values['password-stdin'] === true;
      const byToken = values['access-token-stdin'] === true;
      if (byPassword && byToken)
        throw ctx.usageError('Choose one of --password-stdin and --access-token-stdin.');
      if (values.register && !byPassword)
        throw ctx.usageError('--register needs --password-stdin (the new account needs a password).');
      const current = settingsFor(ctx);
      const known = 'invalid' in current ? undefined : current;
      const homeserver =
        values.homeserver !== undefined
          ? httpUrl(ctx, 'homeserver', values.homeserver)
          : known?.homeserver || '';
      const user = values.user?.trim() || known?.userId || '';
      if ((byPassword || byToken) && homeserver === '')
        throw ctx.usageError('Name the homeserver: --homeserver https://matrix.example.org');
      if (byPassword && user === '') throw ctx.usageError('Name the account: --user hermes-of-bob');
      if (user !== '' && user.startsWith('@') && !isUserId(user))
        throw ctx.usageError(`--user must be a name or a user id like @name:server, got '${user}'.`);
      const notebookFlag = values['notebook-url'];
      const notebookUrl =
        notebookFlag === undefined
          ? undefined
          : ['', 'none', 'off'].includes(notebookFlag.trim().toLowerCase())
            ? ''
            : httpUrl(ctx, 'notebook-url', notebookFlag);
      if (!byPassword && !byToken && notebookUrl === undefined && !values['notebook-key-stdin'])
        throw ctx.usageError(
          'Nothing to set up.',
          'Give --password-stdin, --access-token-stdin or --notebook-url (see --help).',
        );

      const names = [
        ...(byPassword ? ['password'] : byToken ? ['access token'] : []),
        ...(values.register ? ['registration token'] : []),
        ...(values['notebook-key-stdin'] ? ['notebook key'] : []),
      ];
      const secrets = readSecrets(ctx, names, readStdin);
      const secret = (name: string) => secrets[names.indexOf(name)];

      // The account: a session from /register or /login, or the given token checked with whoami.
      let account: { userId: string; accessToken: string; deviceId?: string; how: string } | undefined;
      try {
        if (byPassword) {
          const request = { homeserver, user, password: secret('password')!, signal: ctx.signal };
          const session = values.register
            ? await registerOrLogin({ ...request, registrationToken: secret('registration token')! })
            : { ...(await login(request)), registered: false };
          account = {
            userId: session.user_id,
            accessToken: session.access_token,
            ...(session.device_id ? { deviceId: session.device_id } : {}),
            how: values.register && session.registered ? 'Registered' : 'Logged in as',
          };
        } else if (byToken) {
          const token = secret('access token')!;
          const me = await new MatrixClient({
            homeserver,
            userId: user,
            accessToken: token,
            timeoutMs: 10_000,
            maxRetries: 0,
          }).whoami(ctx.signal);
          // A --user given with the token must match it; without one, the token says who it is.
          const named = values.user?.trim() ?? '';
          if (named.startsWith('@') && me.user_id !== named)
            throw new Error(`The access token belongs to ${me.user_id}, not ${named}.`);
          account = {
            userId: me.user_id,
            accessToken: token,
            ...(me.device_id ? { deviceId: me.device_id } : {}),
            how: 'Access token checked for',
          };
        }
      } catch (error) {
        throw ctx.fail(`Matrix account setup failed: ${describeError(error)}`, 'Nothing was saved.');
      }

      const config: Record<string, unknown> = {};
      if (account) {
        config['memory.hivemind.homeserver'] = homeserver;
        config['memory.hivemind.user_id'] = account.userId;
      }
      if (notebookUrl !== undefined) config['memory.hivemind.notebook_url'] = notebookUrl || undefined;
      const role = roleOf(ctx);
      const enable = role === 'inactive' && values['no-enable'] !== true;
      if (enable) config['memory.secondary'] = withHivemind(ctx);
      const env: Record<string, string> = {};
      if (account) env.MATRIX_ACCESS_TOKEN = account.accessToken;
      if (values['notebook-key-stdin']) env.HERMES_SECRET_KEY = secret('notebook key')!;
      if (Object.keys(config).length > 0) saveConfigValues(ctx.home, config);
      if (Object.keys(env).length > 0) writeEnvValues(ctx.home, env);

      const savedUrl = notebookUrl ?? known?.notebookUrl ?? '';
      const connection = values['no-test']
        ? undefined
        : await new HivemindProvider(
            {
              homeserver: account ? homeserver : known?.homeserver,
              userId: account?.userId ?? known?.userId,
              accessToken: account?.accessToken ?? known?.accessToken,
              notebookUrl: savedUrl,
              notebookKey: env.HERMES_SECRET_KEY ?? known?.notebookKey,
            },
            { env: {}, providerConfig: {} },
          ).probe({ signal: ctx.signal });
      const summary = {
        ...(account
          ? {
              homeserver,
              user_id: account.userId,
              ...(account.deviceId ? { device_id: account.deviceId } : {}),
            }
          : {}),
        notebook_url: savedUrl || null,
        saved: { config: Object.keys(config), env: Object.keys(env) },
        role: enable ? 'secondary' : role,
        ...(connection ? { connection } : {}),
      };
      if (ctx.json) ctx.printJson(summary);
      else {
        if (account)
          ctx.out(
            `${account.how} ${account.userId} on ${homeserver}${account.deviceId ? ` (device ${account.deviceId})` : ''}.`,
          );
        if (Object.keys(config).length > 0)
          ctx.out(`Saved to config.yaml: ${Object.keys(config).join(', ')}`);
        if (Object.keys(env).length > 0) ctx.out(`Saved to .env: ${Object.keys(env).join(', ')}`);
        if (enable)
          ctx.out(
            `Hivemind joins as a read-only secondary beside ${ctx.config.memory.provider || 'the built-in memory'} (memory.secondary).`,
          );
        else if (role === 'inactive')
          ctx.out('Not enabled (--no-enable): add hivemind to memory.secondary in config.yaml to use it.');
        if (connection)
          ctx.out(
            `Connection: ${connection.status === 'ok' ? ctx.style.green('OK') : ctx.style.red('FAILED')} — ${connection.message}`,
          );
      }
      return connection && connection.status !== 'ok' ? 1 : 0;
    },
  };
}

export const setupCommand = createSetupCommand();
