/**
 * Keeps an OAuth access token fresh for the requests the SDK makes: refreshed before it expires
 * (checked synchronously per request — no I/O while it is valid) and again when the server answers
 * 401, the rotated grant persisted to honcho.json before the new token is used. Concurrent
 * refreshes share one exchange: refresh tokens are single-use, and a replay revokes the grant.
 * Across processes the exchange runs under the lock a Python Hermes takes (`flock` on
 * `honcho.json.lock`, core's `withFileLock`), and honcho.json is re-read under it, so a rotation
 * another program just saved is adopted rather than replayed (decision 0924).
 * A failed refresh never throws into the agent: the current token is kept (the request then fails
 * as it would have), a transient failure waits out a cooldown, and a grant the server rejected for
 * good (invalid_grant) is reported as needing a new sign-in.
 */
import { type Clock, type Logger, silentLogger, systemClock, withFileLock } from '@hermes-memory/core';
import {
  credentialFingerprint,
  credentialFromTokenResponse,
  needsRefresh,
  type OAuthCredential,
} from './credential';
import { readStoredCredential, storeCredential } from './store';
import { OAuthError, oauthErrorOf, postForm } from './token-endpoint';

/** After a transient refresh failure, requests keep the current token this long before trying again. */
export const REFRESH_COOLDOWN_MS = 30_000;
/**
 * How long a refresh waits for another process's hold on honcho.json.lock: longer than one
 * exchange (the reference gives it 15 s), so we wait out a Python refresh rather than race it.
 * Callers stop waiting on their own signals before this.
 */
export const REFRESH_LOCK_TIMEOUT_MS = 20_000;

export type GrantState = 'ok' | 'refresh-failing' | 'sign-in-required';

export interface TokenSourceOptions {
  /** The honcho.json the grant was read from (rotations are written back there). */
  file: string;
  host: string;
  credential: OAuthCredential;
  clock?: Clock;
  logger?: Logger;
  timeoutMs?: number;
  /** Wait for honcho.json.lock at most this long (default {@link REFRESH_LOCK_TIMEOUT_MS}). */
  lockTimeoutMs?: number;
}

export class OAuthTokenSource {
  private credential: OAuthCredential;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private exchange: Promise<string> | undefined;
  private failedAt: number | undefined;
  /** The refresh token the server rejected for good; a new sign-in replaces it. */
  private deadRefreshToken: string | undefined;
  private lastError = '';

  constructor(private readonly options: TokenSourceOptions) {
    this.credential = options.credential;
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
  }

  /** The access token to send now. */
  get token(): string {
    return this.credential.accessToken;
  }

  /** Names the grant without revealing it (hash of the refresh token). */
  get fingerprint(): string {
    return credentialFingerprint(this.credential.refreshToken);
  }

  get expiresAt(): number {
    return this.credential.expiresAt;
  }

  get state(): GrantState {
    if (this.deadRefreshToken === this.credential.refreshToken) return 'sign-in-required';
    return this.failedAt !== undefined ? 'refresh-failing' : 'ok';
  }

  /** Why the grant is not healthy, in words (empty when it is). */
  get problem(): string {
    const state = this.state;
    if (state === 'sign-in-required')
      return `the Honcho sign-in is no longer valid (${this.lastError}); run 'hermes-memory honcho login'`;
    if (state === 'refresh-failing') return `refreshing the Honcho sign-in failed: ${this.lastError}`;
    return '';
  }

  /** Whether a request should wait for `fresh()` first: cheap, synchronous, no I/O. */
  get stale(): boolean {
    return needsRefresh(this.credential, this.clock.now()) && this.mayExchange();
  }

  /** The token, refreshed first when it is about to expire. Never rejects except on `signal`. */
  fresh(signal?: AbortSignal): Promise<string> {
    if (!this.stale) return Promise.resolve(this.token);
    return this.rotate(signal);
  }

  /**
   * After the server rejected `rejected` with 401: a newer token when one was obtained (by this
   * call or concurrently), undefined when there is nothing better to retry with.
   */
  async recover(rejected: string, signal?: AbortSignal): Promise<string | undefined> {
    if (this.token !== rejected) return this.token;
    if (!this.mayExchange()) return undefined;
    const token = await this.rotate(signal);
    return token !== rejected ? token : undefined;
  }

  private mayExchange(): boolean {
    if (this.deadRefreshToken === this.credential.refreshToken) return false;
    return this.failedAt === undefined || this.clock.now() - this.failedAt >= REFRESH_COOLDOWN_MS;
  }

  /** One exchange for every caller; each caller stops waiting on its own signal. */
  private rotate(signal: AbortSignal | undefined): Promise<string> {
    if (!this.exchange) {
      this.exchange = this.refreshOnce().finally(() => {
        this.exchange = undefined;
      });
    }
    if (!signal) return this.exchange;
    const shared = this.exchange;
    return new Promise<string>((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      shared.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  /** Under honcho.json.lock; a lock that cannot be had counts as a transient refresh failure. */
  private async refreshOnce(): Promise<string> {
    try {
      return await withFileLock(`${this.options.file}.lock`, () => this.refreshLocked(), {
        timeoutMs: this.options.lockTimeoutMs ?? REFRESH_LOCK_TIMEOUT_MS,
        logger: this.logger,
        description: 'honcho.json lock',
      });
    } catch (error) {
      this.lastError = error instanceof Error ? error.message : String(error);
      this.failedAt = this.clock.now();
      this.logger.warn(`Honcho: ${this.problem}; the current token is kept.`);
      return this.credential.accessToken;
    }
  }

  private async refreshLocked(): Promise<string> {
    const { file, host } = this.options;
    // Another process (a Python Hermes, another agent) may have rotated the grant since it was
    // read: use its token rather than replay a refresh token the server already superseded.
    const stored = readStoredCredential(file, host);
    if (stored && stored.refreshToken !== this.credential.refreshToken) {
      this.credential = stored;
      this.failedAt = undefined;
      if (!needsRefresh(stored, this.clock.now())) return stored.accessToken;
    }
    const current = this.credential;
    let rotated: OAuthCredential;
    try {
      const { status, body } = await postForm(
        current.tokenEndpoint,
        { grant_type: 'refresh_token', client_id: current.clientId, refresh_token: current.refreshToken },
        { clock: this.clock, ...(this.options.timeoutMs ? { timeoutMs: this.options.timeoutMs } : {}) },
      );
      if (status !== 200) throw oauthErrorOf(current.tokenEndpoint, status, body);
      rotated = credentialFromTokenResponse(body, {
        nowMs: this.clock.now(),
        clientId: current.clientId,
        tokenEndpoint: current.tokenEndpoint,
        scope: current.scope,
        tokenType: current.tokenType,
      });
    } catch (error) {
      this.lastError = error instanceof Error ? error.message : String(error);
      if (error instanceof OAuthError && error.permanent) {
        this.deadRefreshToken = current.refreshToken;
        this.logger.error(`Honcho: ${this.problem}.`);
      } else {
        this.failedAt = this.clock.now();
        this.logger.warn(`Honcho: ${this.problem}; the current token is kept.`);
      }
      return current.accessToken;
    }
    // Persist before use: the old refresh token is spent, and only the file carries the new one
    // to the next process. A file that cannot be written still leaves this process working.
    try {
      storeCredential(file, host, rotated);
    } catch (error) {
      this.logger.warn(
        `Honcho: the refreshed sign-in could not be saved to ${file}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    this.credential = rotated;
    this.failedAt = undefined;
    this.lastError = '';
    return rotated.accessToken;
  }
}

/** The token source for a resolved config's grant, or undefined when it authenticates with a key. */
export function tokenSourceFor(
  config: { oauth: OAuthCredential | undefined; configPath: string | undefined; host: string },
  options: { clock?: Clock; logger?: Logger } = {},
): OAuthTokenSource | undefined {
  if (!config.oauth || !config.configPath) return undefined;
  return new OAuthTokenSource({
    file: config.configPath,
    host: config.host,
    credential: config.oauth,
    ...options,
  });
}
