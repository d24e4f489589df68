/**
 * The official SDK client, built from a resolved config and kept usable: every call runs with the
 * caller's signal (see transport.ts), and the workspace the SDK creates once per client is created
 * again after a failure (the SDK memoises the rejected promise, which would fail every later call).
 */
import { type CircuitBreaker, type Clock, type HealthMonitor, SettingsError } from '@hermes-memory/core';
import { Honcho } from '@honcho-ai/sdk';
import type { OAuthTokenSource } from '../auth/token-source';
import { HonchoTransport, runWithSignal } from './transport';

const CLOUD_URL = 'https://api.honcho.dev';
const LOCAL_URL = 'http://localhost:8000';
/** Placeholder key for a local server run without auth (the SDK sends one either way). */
export const LOCAL_API_KEY = 'local';

export interface HonchoClientOptions {
  apiKey: string | undefined;
  /** Whether the key was written in honcho.json (a local server keeps it; an environment key is a cloud key). */
  apiKeyInFile: boolean;
  baseUrl: string | undefined;
  environment: string;
  workspaceId: string;
  /** Per-request timeout in ms. */
  timeoutMs: number;
  maxRetries?: number;
  clock?: Clock;
  health?: HealthMonitor;
  /** The OAuth grant behind `apiKey` (kept fresh; its token replaces `apiKey` as it rotates). */
  oauth?: OAuthTokenSource;
  /** Every request passes it (the provider's; the CLI's one-shot clients have none). */
  breaker?: CircuitBreaker;
}

/** Loopback, RFC 1918, link-local, unique-local and CGNAT (100.64/10) hosts: a self-hosted Honcho. */
export function isLocalBaseUrl(baseUrl: string | undefined): boolean {
  if (!baseUrl) return false;
  let host: string;
  try {
    host = new URL(baseUrl).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  if (host === 'localhost' || host === '::1') return true;
  const v4 = host.match(/^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return (
      a === 127 ||
      a === 10 ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 169 && b === 254) ||
      (a === 100 && b >= 64 && b <= 127)
    );
  }
  return /^f[cd][0-9a-f]{2}:/.test(host) || /^fe[89ab][0-9a-f]:/.test(host);
}

/** The SDK adds `/v3` itself: a configured `…/v3` (or any `/vN`) suffix is dropped. */
export function normalizeBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/\/v\d+\/*$/, '').replace(/\/+$/, '');
}

/** Where requests go: the configured URL, else the environment's. */
export function effectiveBaseUrl(baseUrl: string | undefined, environment: string): string {
  if (baseUrl) return normalizeBaseUrl(baseUrl);
  return environment === 'local' ? LOCAL_URL : CLOUD_URL;
}

/** The key sent: a local server without a key written in honcho.json gets the placeholder. */
export function effectiveApiKey(
  options: Pick<HonchoClientOptions, 'apiKey' | 'apiKeyInFile' | 'baseUrl' | 'environment'>,
): string | undefined {
  const url = effectiveBaseUrl(options.baseUrl, options.environment);
  if (isLocalBaseUrl(url) && !options.apiKeyInFile) return LOCAL_API_KEY;
  return options.apiKey;
}

export class HonchoClient {
  readonly baseUrl: string;
  readonly workspaceId: string;
  private current: Honcho | undefined;
  private generation = 0;
  private readonly apiKey: string | undefined;

  constructor(private readonly options: HonchoClientOptions) {
    this.baseUrl = effectiveBaseUrl(options.baseUrl, options.environment);
    this.workspaceId = options.workspaceId;
    this.apiKey = effectiveApiKey(options);
    this.build(); // validates the settings now, so a bad workspace id fails at initialise
  }

  /** Bumped whenever the SDK client is rebuilt: peer and session handles of older epochs are stale. */
  get epoch(): number {
    return this.generation;
  }

  /** The SDK client (rebuilt after a failed workspace creation). */
  get sdk(): Honcho {
    return this.current ?? this.build();
  }

  /**
   * Run SDK calls with `signal` reaching every request they make. `bypassBreaker`: the connection
   * test, which goes out (uncounted) even while the breaker is open.
   */
  call<T>(
    signal: AbortSignal | undefined,
    work: (sdk: Honcho) => Promise<T>,
    options: { bypassBreaker?: boolean } = {},
  ): Promise<T> {
    const sdk = this.sdk;
    return runWithSignal(signal, () => work(sdk), options);
  }

  private build(): Honcho {
    let sdk: Honcho;
    try {
      sdk = new Honcho({
        baseURL: this.baseUrl,
        workspaceId: this.options.workspaceId,
        // Explicit values only: the SDK would otherwise read process.env, not the profile's env.
        ...(this.options.oauth
          ? { apiKey: this.options.oauth.token }
          : this.apiKey
            ? { apiKey: this.apiKey }
            : {}),
        timeout: this.options.timeoutMs,
        maxRetries: 0,
      });
    } catch (error) {
      const issues = (error as { issues?: Array<{ path?: unknown[]; message?: string }> }).issues;
      const detail = issues?.map((i) => `${(i.path ?? []).join('.')}: ${i.message}`).join('; ');
      throw new SettingsError('honcho', `Invalid Honcho settings: ${detail || String(error)}`, {
        cause: error,
      });
    }
    const built = sdk;
    new HonchoTransport({
      apiKey: this.apiKey,
      timeoutMs: this.options.timeoutMs,
      ...(this.options.maxRetries !== undefined ? { maxRetries: this.options.maxRetries } : {}),
      ...(this.options.clock ? { clock: this.options.clock } : {}),
      ...(this.options.health ? { health: this.options.health } : {}),
      ...(this.options.oauth ? { oauth: this.options.oauth } : {}),
      ...(this.options.breaker ? { breaker: this.options.breaker } : {}),
      onWorkspaceFailure: () => {
        if (this.current === built) {
          this.current = undefined;
          this.generation += 1;
        }
      },
    }).install(sdk.http);
    this.current = sdk;
    return sdk;
  }
}
