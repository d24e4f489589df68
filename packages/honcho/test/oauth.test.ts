/**
 * Honcho OAuth sign-in (§2.1 credential fingerprint and in-place bearer rotation, §2.2 the `oauth`
 * grant object and the HONCHO_OAUTH_* variables; the reference's test_oauth and test_oauth_flow):
 * the device and browser flows through `hermes-memory honcho login` against the shipped fake's
 * authorization server over real HTTP, the grant stored in honcho.json, refreshed before expiry
 * and after a 401, concurrent refreshes sharing one exchange. Injected clock, ports on 0, no sleeps.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ManualClock, silentLogger } from '@hermes-memory/core';
import {
  runProviderCliCommand,
  spawnPython,
  stdoutLines,
  type TempHermesHome,
  tempHermesHome,
} from '@hermes-memory/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import {
  credentialFingerprint,
  credentialFromBlock,
  type OAuthCredential,
  REFRESH_SKEW_MS,
} from '../src/auth/credential';
import { resolveOAuthEndpoints } from '../src/auth/endpoints';
import { pollDeviceToken, requestDeviceCode, startBrowserSignIn } from '../src/auth/flows';
import { OAuthTokenSource } from '../src/auth/token-source';
import { createHonchoCli } from '../src/cli/index';
import { HonchoProvider } from '../src/index';
import { type FakeHoncho, startFakeHoncho } from '../src/testing/index';

const API_KEY = 'hk-static-key-0123456789';
// Ahead of the real clock: the CLI's connection test reads the system time, and must see these tokens as fresh.
const START = Date.parse('2035-01-01T10:00:00Z');

const homes: TempHermesHome[] = [];
const fakes: FakeHoncho[] = [];
const providers: HonchoProvider[] = [];
afterEach(async () => {
  for (const p of providers.splice(0)) await p.shutdown({ timeoutMs: 500 }).catch(() => undefined);
  for (const f of fakes.splice(0)) await f.close();
  for (const h of homes.splice(0)) h.cleanup();
});

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** The reference's refresh under flock on honcho.json.lock (test/python/honcho_refresh.py). */
const REFRESH_PY = path.join(__dirname, 'python', 'honcho_refresh.py');

async function setup(file: Record<string, unknown> = {}) {
  const fake = await startFakeHoncho({ requireAuth: true });
  fakes.push(fake);
  const home = tempHermesHome('honcho-oauth-');
  homes.push(home);
  const honchoJson = path.join(home.path, 'honcho.json');
  fs.writeFileSync(
    honchoJson,
    JSON.stringify({
      baseUrl: fake.url,
      peerName: 'alice',
      hosts: { obsidian: { workspace: 'obsidian' } },
      ...file,
    }),
  );
  // Both origins of the authorization server are the fake's (the dashboard's /authorize too).
  const env = { HOME: home.path, HONCHO_OAUTH_DASHBOARD: fake.url };
  const clock = new ManualClock(START);
  return { fake, home: home.path, honchoJson, env, clock };
}

const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));
const grantIn = (file: string, host = 'hermes'): OAuthCredential =>
  credentialFromBlock(readJson(file).hosts[host])!;

/** Run a CLI command to completion, moving the injected clock on while it waits (device polling). */
async function runDriven(
  clock: ManualClock,
  run: Promise<{ code: number; stdout: string; stderr: string }>,
  stepMs = 1_000,
  /**
   * Move the clock only to a timer due within `stepMs` (the poll interval) and never past it:
   * while a request is in flight its deadline (15 s away) is the only timer, so time stands still
   * however slowly a loaded machine answers, and the deadline cannot fire spuriously.
   */
  pollsOnly = false,
) {
  let done = false;
  const result = run.finally(() => {
    done = true;
  });
  for (let i = 0; i < 2_000 && !done; ) {
    await tick();
    const next = clock.nextTimerAt;
    if (pollsOnly && (next === undefined || next - clock.now() > stepMs)) continue;
    await clock.advance(pollsOnly ? next! - clock.now() : stepMs);
    i += 1;
  }
  return result;
}

/** The user's browser: follows /authorize's redirect into the loopback callback. */
async function browser(url: string): Promise<void> {
  const consent = await fetch(url, { redirect: 'manual' });
  const location = consent.headers.get('location');
  if (!location) throw new Error(`no redirect from /authorize (${consent.status})`);
  await fetch(location);
}

function assertNoTokens(texts: readonly string[], credential: OAuthCredential) {
  for (const text of texts) {
    expect(text).not.toContain(credential.accessToken);
    expect(text).not.toContain(credential.refreshToken);
  }
}

describe('honcho OAuth sign-in', () => {
  it('§2.2 endpoints: cloud by default, local for environment local, a self-hosted base URL carries the token endpoint, HONCHO_OAUTH_* override; client hermes-agent, scope write', () => {
    expect(resolveOAuthEndpoints({ env: {} })).toEqual({
      authorizeUrl: 'https://app.honcho.dev/authorize',
      tokenUrl: 'https://api.honcho.dev/oauth/token',
      deviceAuthorizationUrl: 'https://api.honcho.dev/oauth/device_authorization',
      clientId: 'hermes-agent',
      scope: 'write',
    });
    expect(resolveOAuthEndpoints({ env: {}, environment: 'local' })).toMatchObject({
      authorizeUrl: 'http://localhost:3000/authorize',
      tokenUrl: 'http://localhost:8000/oauth/token',
    });
    expect(resolveOAuthEndpoints({ env: {}, baseUrl: 'https://honcho.example.org/v3' })).toMatchObject({
      tokenUrl: 'https://honcho.example.org/oauth/token',
      deviceAuthorizationUrl: 'https://honcho.example.org/oauth/device_authorization',
    });
    const env = {
      HONCHO_OAUTH_DASHBOARD: 'https://dash.example/',
      HONCHO_OAUTH_TOKEN_URL: 'https://auth.example/o/token',
      HONCHO_OAUTH_CLIENT_ID: 'custom-id',
      HONCHO_OAUTH_SCOPE: 'read',
    };
    expect(resolveOAuthEndpoints({ env })).toEqual({
      authorizeUrl: 'https://dash.example/authorize',
      tokenUrl: 'https://auth.example/o/token',
      deviceAuthorizationUrl: 'https://auth.example/o/device_authorization',
      clientId: 'custom-id',
      scope: 'read',
    });
    expect(
      resolveOAuthEndpoints({
        env: {
          ...env,
          HONCHO_OAUTH_AUTHORIZE_URL: 'https://x/a',
          HONCHO_OAUTH_DEVICE_AUTH_URL: 'https://x/d',
        },
      }),
    ).toMatchObject({ authorizeUrl: 'https://x/a', deviceAuthorizationUrl: 'https://x/d' });
  });

  it('login (device code, the default): shows the code, polls on the injected clock, stores the grant in the host block at 0600 with other blocks kept, and never prints a token', async () => {
    const { fake, home, honchoJson, env, clock } = await setup();
    const cli = createHonchoCli({ clock });
    const run = runProviderCliCommand(cli, ['login'], { home, json: false, env });
    // The user approves after a few polls.
    let polls = 0;
    const approve = (async () => {
      while (fake.requestsTo('POST /oauth/token').length < 2) await tick();
      polls = fake.requestsTo('POST /oauth/token').length;
      fake.oauth.approveDevice();
    })();
    const result = await runDriven(clock, run, 5_000, true);
    await approve;
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /open http:\/\/127\.0\.0\.1:\d+\/device and enter the code [0-9A-F]{4}-[0-9A-F]{4}/,
    );
    expect(result.stdout).toMatch(
      /Signed in to Honcho \(device code\) as host 'hermes'; sign-in [0-9a-f]{12} saved to/,
    );
    expect(result.stdout).toMatch(/answered/); // the connection test ran with the new token
    expect(polls).toBeGreaterThanOrEqual(2);

    const saved = readJson(honchoJson);
    const grant = grantIn(honchoJson);
    expect(saved.hosts.hermes.apiKey).toMatch(/^hch-at-/);
    expect(saved.hosts.hermes.oauth).toEqual({
      refreshToken: grant.refreshToken,
      expiresAt: expect.any(Number),
      clientId: 'hermes-agent',
      tokenEndpoint: `${fake.url}/oauth/token`,
      scope: 'write',
      tokenType: 'Bearer',
    });
    expect(grant.refreshToken).toMatch(/^hch-rt-/);
    expect(grant.expiresAt).toBeGreaterThan(START + 3_600_000);
    expect(grant.expiresAt).toBeLessThanOrEqual(clock.now() + 3_600_000);
    expect(saved.hosts.obsidian).toEqual({ workspace: 'obsidian' });
    expect(saved.baseUrl).toBe(fake.url);
    expect(fs.statSync(honchoJson).mode & 0o777).toBe(0o600);
    // The device request named the client, scope and surface; nothing secret was recorded.
    expect(fake.requestsTo('POST /oauth/device_authorization')[0]!.rawBody).toBe(
      'client_id=hermes-agent&scope=write&source=hermes-cli',
    );
    assertNoTokens([result.stdout, result.stderr, JSON.stringify(fake.requests)], grant);
    expect(JSON.stringify(fake.requests)).not.toMatch(/dev-[A-Za-z0-9_-]{10}/);
  });

  it('device polling follows slow_down (+5 s, capped at 60 s) and ends on access_denied with a clear error', async () => {
    const { fake, env, clock } = await setup();
    const endpoints = resolveOAuthEndpoints({ env, baseUrl: fake.url });
    const device = await requestDeviceCode(endpoints, { clock });
    expect(device.interval).toBe(5);
    fake.oauth.devicePollAnswers.push('slow_down', 'slow_down', 'access_denied');
    const stamps: number[] = [];
    const polled = pollDeviceToken(endpoints, device, {
      clock,
      onPoll: () => stamps.push(clock.now() - START),
    });
    polled.catch(() => undefined);
    for (let i = 0; i < 100 && stamps.length < 3; i++) {
      await tick();
      await clock.advance(1_000);
    }
    await expect(polled).rejects.toMatchObject({ code: 'access_denied' });
    // 5 s, then 10 s after the first slow_down, 15 s after the second.
    expect(stamps).toEqual([5_000, 15_000, 30_000]);

    const slow = { ...(await requestDeviceCode(endpoints, { clock })), interval: 58 };
    fake.oauth.devicePollAnswers.push('slow_down', 'ok');
    const at: number[] = [];
    const from = clock.now();
    const granted = pollDeviceToken(endpoints, slow, { clock, onPoll: () => at.push(clock.now() - from) });
    for (let i = 0; i < 300 && at.length < 2; i++) {
      await tick();
      await clock.advance(1_000);
    }
    expect((await granted).access_token).toMatch(/^hch-at-/);
    expect(at).toEqual([58_000, 118_000]); // 58 + 5 capped at 60
  });

  it('login --browser: PKCE through a loopback listener on a port the OS picked; a forged callback is refused and does not end the wait; the grant is stored', async () => {
    const { fake, home, honchoJson, env, clock } = await setup();
    let forged = 0;
    const cli = createHonchoCli({
      clock,
      openUrl: async (url) => {
        const redirect = new URL(url).searchParams.get('redirect_uri')!;
        expect(redirect).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
        expect(Number(new URL(redirect).port)).toBeGreaterThan(0);
        expect(new URL(url).searchParams.get('config_path')).toBe('honcho.json');
        forged = (await fetch(`${redirect}?code=stolen&state=not-ours`)).status;
        await browser(url);
      },
    });
    const result = await runProviderCliCommand(cli, ['login', '--browser'], { home, json: true, env });
    expect(result.code).toBe(0);
    expect(forged).toBe(400);
    const out = JSON.parse(result.stdout);
    expect(out).toMatchObject({
      signedIn: true,
      method: 'browser',
      host: 'hermes',
      connection: { status: 'ok' },
    });
    const grant = grantIn(honchoJson);
    expect(out.credential.fingerprint).toBe(credentialFingerprint(grant.refreshToken));
    const authorize = fake.requestsTo('GET /authorize')[0]!;
    expect(authorize.query).toMatchObject({
      client_id: 'hermes-agent',
      code_challenge_method: 'S256',
      response_type: 'code',
      scope: 'write',
    });
    expect(fake.requestsTo('POST /oauth/token')[0]!.rawBody).toMatch(
      /grant_type=authorization_code&client_id=hermes-agent&code=\[redacted\]/,
    );
    assertNoTokens([result.stdout, result.stderr, JSON.stringify(fake.requests)], grant);
    expect(JSON.stringify(fake.requests)).not.toMatch(/code_verifier=[A-Za-z0-9_-]{20}/);
  });

  it('a denied consent ends login with the reason (exit 1); the file is untouched', async () => {
    const { fake, home, honchoJson, env, clock } = await setup();
    fake.oauth.consent = 'deny';
    const before = fs.readFileSync(honchoJson, 'utf8');
    const cli = createHonchoCli({ clock, openUrl: browser });
    const result = await runProviderCliCommand(cli, ['login', '--browser'], { home, json: false, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/authorization denied: access_denied/);
    expect(fs.readFileSync(honchoJson, 'utf8')).toBe(before);
  });

  it('a corrupt honcho.json is refused before any sign-in starts, and left as it was', async () => {
    const { fake, home, honchoJson, env, clock } = await setup();
    fs.writeFileSync(honchoJson, '{ "hosts": ');
    const result = await runProviderCliCommand(createHonchoCli({ clock }), ['login'], {
      home,
      json: false,
      env,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Refusing to edit/);
    expect(fs.readFileSync(honchoJson, 'utf8')).toBe('{ "hosts": ');
    expect(fake.requests).toHaveLength(0);
  });

  it('§2.1 status names the credential in use by fingerprint (refresh token for OAuth, the key otherwise) without revealing it; logout removes the grant and keeps the rest', async () => {
    const { home, honchoJson, env, clock } = await setup();
    const cli = createHonchoCli({ clock, openUrl: browser });
    expect((await runProviderCliCommand(cli, ['login', '--browser'], { home, json: true, env })).code).toBe(
      0,
    );
    const grant = grantIn(honchoJson);
    const status = await runProviderCliCommand(cli, ['status'], { home, json: true, env });
    const details = JSON.parse(status.stdout).details;
    expect(details.apiKey).toBe('OAuth sign-in (honcho.json)');
    expect(details.credential).toMatch(
      new RegExp(
        `^OAuth sign-in ${credentialFingerprint(grant.refreshToken)} \\(access token expires in \\d+ min\\)$`,
      ),
    );
    assertNoTokens([status.stdout], grant);

    const out = await runProviderCliCommand(cli, ['logout'], { home, json: false, env });
    expect(out.stdout).toMatch(/Signed out: the OAuth sign-in of host 'hermes' was removed/);
    const saved = readJson(honchoJson);
    expect(saved.hosts.hermes).toEqual({});
    expect(saved.hosts.obsidian).toEqual({ workspace: 'obsidian' });
    expect(saved.peerName).toBe('alice');

    fs.writeFileSync(honchoJson, JSON.stringify({ apiKey: API_KEY }));
    const keyed = JSON.parse(
      (await runProviderCliCommand(cli, ['status'], { home, json: true, env })).stdout,
    );
    expect(keyed.details.credential).toBe(`API key ${credentialFingerprint(API_KEY)} (honcho.json)`);
    expect(JSON.stringify(keyed)).not.toContain(API_KEY);
  });
});

describe('honcho OAuth refresh', () => {
  /** A signed-in home (browser flow against the fake) and a provider reading it. */
  async function signedIn() {
    const s = await setup();
    const cli = createHonchoCli({ clock: s.clock, openUrl: browser });
    expect(
      (await runProviderCliCommand(cli, ['login', '--browser'], { home: s.home, json: true, env: s.env }))
        .code,
    ).toBe(0);
    const provider = new HonchoProvider(
      { cwd: '/srv/projects/demo', userHome: s.home, clock: s.clock },
      { hermesHome: s.home, env: s.env },
    );
    providers.push(provider);
    return { ...s, provider };
  }

  async function init(provider: HonchoProvider, home: string) {
    await provider.initialize('s1', {
      hermesHome: home,
      platform: 'cli',
      agentContext: 'primary',
      logger: silentLogger,
      env: {},
    });
    await provider.idle();
  }

  it('refreshes before expiry (inside the 120 s skew): the rotated grant is saved to honcho.json and the bearer rotated in place; no refresh while the token is fresh', async () => {
    const { fake, home, honchoJson, clock, provider } = await signedIn();
    await init(provider, home);
    const first = grantIn(honchoJson);
    expect(JSON.parse(await provider.handleToolCall('honcho_profile', {})).error).toBeUndefined();
    expect(fake.oauth.refreshes).toBe(0);

    await clock.advance(3_600_000 - REFRESH_SKEW_MS + 1_000);
    expect(JSON.parse(await provider.handleToolCall('honcho_profile', {})).error).toBeUndefined();
    expect(fake.oauth.refreshes).toBe(1);
    const rotated = grantIn(honchoJson);
    expect(rotated.refreshToken).not.toBe(first.refreshToken);
    expect(rotated.accessToken).not.toBe(first.accessToken);
    expect(rotated.expiresAt).toBe(clock.now() + 3_600_000);
    expect(fs.statSync(honchoJson).mode & 0o777).toBe(0o600);
    expect(readJson(honchoJson).hosts.obsidian).toEqual({ workspace: 'obsidian' });
    expect(provider.health()?.status).toBe('ok');
  });

  it('a 401 on a token the local clock still trusts: one refresh, the request repeated once, and it succeeds', async () => {
    const { fake, home, provider } = await signedIn();
    await init(provider, home);
    fake.oauth.expireAccessTokens(); // the server revoked it early
    const before = fake.requests.length;
    expect(JSON.parse(await provider.handleToolCall('honcho_profile', {})).error).toBeUndefined();
    expect(fake.oauth.refreshes).toBe(1);
    const card = fake.requests
      .slice(before)
      .filter((r) => r.route === 'GET /v3/workspaces/:workspace/peers/:peer/card');
    expect(card.map((r) => r.status)).toEqual([401, 200]);
  });

  /** Signed in through `login --browser`, then an hour later: the token source is stale. */
  async function signedInStale() {
    const { fake, honchoJson, clock } = await setup();
    const cli = createHonchoCli({ clock, openUrl: browser });
    const home = path.dirname(honchoJson);
    const env = { HOME: home, HONCHO_OAUTH_DASHBOARD: fake.url };
    expect((await runProviderCliCommand(cli, ['login', '--browser'], { home, json: true, env })).code).toBe(
      0,
    );
    const source = new OAuthTokenSource({
      file: honchoJson,
      host: 'hermes',
      credential: grantIn(honchoJson),
      clock,
    });
    await clock.advance(3_600_000);
    expect(source.stale).toBe(true);
    return { fake, honchoJson, clock, source, home };
  }

  it('concurrent refreshes share one exchange (a replayed refresh token would revoke the grant)', async () => {
    const { fake, honchoJson, clock, source } = await signedInStale();
    const tokens = await Promise.all(Array.from({ length: 8 }, () => source.fresh()));
    expect(new Set(tokens).size).toBe(1);
    expect(fake.oauth.refreshes).toBe(1);
    expect(fake.oauth.revokedGrants).toBe(0);
    expect(tokens[0]).toBe(grantIn(honchoJson).accessToken);
    // A second source on the same file (another process) adopts the rotated grant instead of replaying.
    const sibling = new OAuthTokenSource({
      file: honchoJson,
      host: 'hermes',
      credential: {
        ...grantIn(honchoJson),
        refreshToken: 'hch-rt-old',
        accessToken: 'hch-at-old',
        expiresAt: 0,
      },
      clock,
    });
    expect(await sibling.fresh()).toBe(tokens[0]);
    expect(fake.oauth.refreshes).toBe(1);
  });

  it('a Python Hermes refreshing under flock on honcho.json.lock: our refresh waits for it and adopts its rotated token (one exchange, grant intact)', async () => {
    const { fake, honchoJson, clock, source, home } = await signedInStale();

    // The Python agent takes the lock first and refreshes only after our refresh has started.
    const python = spawnPython(REFRESH_PY, honchoJson, 'hermes', String(clock.now() / 1000));
    const lines = stdoutLines(python);
    expect(await lines.next()).toBe('locked');
    const ours = source.fresh(); // reads honcho.json and exchanges at once unless it waits for the lock
    python.stdin?.write('go\n');
    const theirs = JSON.parse(await lines.next()) as { accessToken: string };
    expect(await ours).toBe(theirs.accessToken);
    expect(fake.oauth.refreshes).toBe(1);
    expect(fake.oauth.revokedGrants).toBe(0);
    expect(grantIn(honchoJson).accessToken).toBe(theirs.accessToken);
    expect(source.state).toBe('ok');
  }, 30_000);

  it('a grant the server rejected for good (replayed refresh token): no retry storm, health says to sign in again, tools still answer JSON', async () => {
    const { fake, home, honchoJson, clock, provider } = await signedIn();
    await init(provider, home);
    const stale = grantIn(honchoJson);
    // Another client spends the refresh token, then ours replays it: the server revokes the grant.
    const form = new URLSearchParams({
      grant_type: 'refresh_token',
      client_id: 'hermes-agent',
      refresh_token: stale.refreshToken,
    });
    expect((await fetch(`${fake.url}/oauth/token`, { method: 'POST', body: form })).status).toBe(200);
    fs.writeFileSync(honchoJson, JSON.stringify({ ...readJson(honchoJson) })); // the file still holds the spent token
    await clock.advance(3_600_000);
    const answer = JSON.parse(await provider.handleToolCall('honcho_profile', {}));
    expect(typeof answer.error === 'string' || typeof answer.result === 'string').toBe(true);
    expect(fake.oauth.revokedGrants).toBe(1);
    const health = provider.health();
    expect(health?.status).not.toBe('ok');
    expect(health?.reason).toMatch(/no longer valid .*invalid_grant.*hermes-memory honcho login/);
    assertNoTokens([JSON.stringify(health), JSON.stringify(answer)], stale);
    const refreshCalls = fake.requestsTo('POST /oauth/token').length;
    await provider.handleToolCall('honcho_profile', {});
    expect(fake.requestsTo('POST /oauth/token').length).toBe(refreshCalls); // dead grant: no more exchanges
  });

  it('a browser sign-in that never comes back times out on the injected clock and frees its port', async () => {
    const { fake, env, clock } = await setup();
    const signIn = await startBrowserSignIn(resolveOAuthEndpoints({ env, baseUrl: fake.url }), {
      clock,
      timeoutMs: 60_000,
    });
    const port = new URL(signIn.redirectUri).port;
    signIn.result.catch(() => undefined);
    await clock.advance(60_000);
    await expect(signIn.result).rejects.toThrow(/no answer from the browser/);
    await expect(fetch(`http://127.0.0.1:${port}/callback`)).rejects.toThrow();
  });
});
