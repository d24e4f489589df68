import {
  type CircuitBreaker,
  type Clock,
  type HealthMonitor,
  type Logger,
  pollUntil,
  systemClock,
} from '@hermes-memory/core';
import { OpenvikingClient, type ServerIdentity, stringOf } from './client';
import { loopbackTarget } from './endpoint';
import { type LaunchResult, launchLocalServer } from './local-server';
import { connectionFingerprint, type ResolvedOpenvikingSettings } from './openviking-settings';

/** How long a failed connection is left alone before it is probed again (same settings). */
export const RECONNECT_COOLDOWN_MS = 30_000;
/** The started local server has this long to answer its health check, polled every 500 ms. */
export const AUTO_START_WAIT_MS = 60_000;
const AUTO_START_POLL_MS = 500;

export type ConnectionState =
  | 'unknown'
  | 'connected'
  | 'unreachable'
  | 'unhealthy'
  | 'invalid'
  | 'misconfigured'
  | 'starting';

export interface ConnectionOptions {
  /** Settings, re-read at every `ensure` (a changed endpoint, key or identity rebuilds the client). */
  settings: () => ResolvedOpenvikingSettings;
  version: string;
  hermesHome: string;
  env: Readonly<Record<string, string | undefined>>;
  monitor: HealthMonitor;
  logger: Logger;
  clock?: Clock;
  cooldownMs?: number;
  /** Called when a client becomes usable (first connect, reconnect, after auto-start). */
  onConnected?: (client: OpenvikingClient) => void;
  /** Replace the launcher (tests). */
  launch?: typeof launchLocalServer;
  /** The provider's circuit breaker, handed to every client (the identity probe bypasses it). */
  breaker?: CircuitBreaker;
}

/**
 * Runtime health of the OpenViking connection. The provider is off while the server is
 * unreachable, unhealthy or not OpenViking: tools say "OpenViking server not connected" and
 * nothing is written. A failed connection is probed again at most every 30 s for the same
 * settings (on the injected clock); changed settings rebuild the client and probe at once. A
 * loopback `http://` endpoint that nothing answers on gets `openviking-server` started once per
 * settings, and is attached in the background when it answers (within 60 s).
 */
export class Connection {
  state: ConnectionState = 'unknown';
  reason = '';
  /** The server's version (modern servers) once connected. */
  serverVersion = '';
  /** The last auto-start attempt, for status. */
  lastLaunch: LaunchResult | null = null;

  private readonly options: ConnectionOptions;
  private readonly clock: Clock;
  private client: OpenvikingClient | null = null;
  private settings: ResolvedOpenvikingSettings;
  private fingerprint = '';
  private checkedAt = Number.NEGATIVE_INFINITY;
  private probing: Promise<OpenvikingClient | null> | null = null;
  private launchedFor = '';
  private waiter: Promise<void> | null = null;
  private userId: string | null = null;
  private closed = new AbortController();

  constructor(options: ConnectionOptions) {
    this.options = options;
    this.clock = options.clock ?? systemClock;
    this.settings = options.settings();
  }

  /** The connected client, or null. Synchronous and free of I/O (the hot path reads this). */
  current(): OpenvikingClient | null {
    return this.state === 'connected' ? this.client : null;
  }

  /** Not connected yet, but a probe is running or due (nothing says the server is down). */
  get pendingProbe(): boolean {
    return this.probing !== null || this.state === 'unknown';
  }

  get currentSettings(): ResolvedOpenvikingSettings {
    return this.settings;
  }

  /** The background waiter for an auto-started server (tests await it). */
  get autoStartWaiter(): Promise<void> | null {
    return this.waiter;
  }

  /**
   * A usable client, probing when the settings changed or the cooldown has passed; null while
   * the server is not usable. Never throws.
   */
  async ensure(signal?: AbortSignal): Promise<OpenvikingClient | null> {
    const settings = this.options.settings();
    const fingerprint = connectionFingerprint(settings);
    if (fingerprint !== this.fingerprint) {
      this.fingerprint = fingerprint;
      this.settings = settings;
      this.client = null;
      this.userId = null;
      this.checkedAt = Number.NEGATIVE_INFINITY;
      this.state = 'unknown';
    }
    if (this.state === 'connected') return this.client;
    const problem = settings.endpointError ?? settings.identityError;
    if (problem) {
      this.fail('misconfigured', problem);
      return null;
    }
    if (this.state === 'starting') return null;
    if (this.probing) return this.probing;
    if (this.clock.now() - this.checkedAt < (this.options.cooldownMs ?? RECONNECT_COOLDOWN_MS)) return null;
    this.probing ??= this.probe(settings, fingerprint, signal).finally(() => {
      this.probing = null;
    });
    return this.probing;
  }

  /** A new client for the same settings (the writer's retry uses one). */
  fresh(): OpenvikingClient | null {
    if (this.state !== 'connected') return null;
    return this.build(this.settings);
  }

  /**
   * The user id memories live under: `system/status` → `result.user`, cached for this
   * connection; on failure the configured user (or `default`) for this call only.
   */
  async user(client: OpenvikingClient, signal?: AbortSignal): Promise<string> {
    if (this.userId !== null && client === this.client) return this.userId;
    try {
      const status = await client.systemStatus({ ...(signal ? { signal } : {}), timeoutMs: 3000 });
      const user = stringOf(status.user);
      if (user && /^[A-Za-z0-9_.@-]+$/.test(user)) {
        if (client === this.client) this.userId = user;
        return user;
      }
    } catch {}
    return this.settings.user || 'default';
  }

  /** Forget the connection (shutdown); a running auto-start waiter stops. */
  close(): void {
    this.closed.abort();
    this.state = 'unknown';
    this.client = null;
  }

  private build(settings: ResolvedOpenvikingSettings): OpenvikingClient {
    return new OpenvikingClient({
      endpoint: settings.endpoint,
      apiKey: settings.apiKey,
      account: settings.account,
      user: settings.user,
      agent: settings.agent,
      timeoutMs: settings.timeoutMs,
      version: this.options.version,
      health: this.options.monitor,
      clock: this.clock,
      ...(this.options.breaker ? { breaker: this.options.breaker } : {}),
    });
  }

  private async probe(
    settings: ResolvedOpenvikingSettings,
    fingerprint: string,
    signal?: AbortSignal,
  ): Promise<OpenvikingClient | null> {
    this.checkedAt = this.clock.now();
    const client = this.build(settings);
    const identity = await client.identify(signal ? { signal } : {});
    if (fingerprint !== this.fingerprint) return null; // settings changed meanwhile
    if (this.attach(client, identity)) return client;
    if (identity.kind === 'unreachable' && settings.autoStart && this.launchedFor !== fingerprint) {
      const target = loopbackTarget(settings.endpoint);
      if (target) {
        this.launchedFor = fingerprint;
        await this.autoStart(settings, fingerprint, target);
      } else {
        this.options.logger.warn(
          `OpenViking server at ${settings.endpoint} is unreachable (${identity.reason}); memory is off until it answers.`,
        );
      }
    }
    return null;
  }

  /** Use `client` when the identity probe says OpenViking answered healthy; else record why not. */
  private attach(client: OpenvikingClient, identity: ServerIdentity): boolean {
    if (identity.kind === 'modern' || identity.kind === 'legacy') {
      this.client = client;
      this.state = 'connected';
      this.reason = '';
      this.serverVersion = identity.kind === 'modern' ? identity.version : 'legacy';
      this.options.monitor.recordSuccess();
      this.options.onConnected?.(client);
      return true;
    }
    this.fail(identity.kind, `OpenViking server at ${client.endpoint}: ${identity.reason}`);
    return false;
  }

  private fail(state: ConnectionState, reason: string): void {
    this.state = state;
    this.reason = reason;
    this.client = null;
    this.options.monitor.markDown(reason);
  }

  private async autoStart(
    settings: ResolvedOpenvikingSettings,
    fingerprint: string,
    target: { host: string; port: number },
  ): Promise<void> {
    const launch = this.options.launch ?? launchLocalServer;
    const result = await launch({
      command: settings.serverCommand,
      host: target.host,
      port: target.port,
      hermesHome: this.options.hermesHome,
      env: this.options.env,
    });
    this.lastLaunch = result;
    if (result.status !== 'spawned') {
      this.options.logger.warn(`OpenViking auto-start: ${result.message}`);
      return;
    }
    this.state = 'starting';
    this.reason = `openviking-server starting (pid ${result.pid}, log ${result.logFile})`;
    this.options.logger.info(
      `Starting the local OpenViking server at ${settings.endpoint} (pid ${result.pid}).`,
    );
    this.waiter = this.waitForServer(settings, fingerprint);
  }

  private async waitForServer(settings: ResolvedOpenvikingSettings, fingerprint: string): Promise<void> {
    const client = this.build(settings);
    const polled = await pollUntil(() => client.identify({ signal: this.closed.signal }), {
      intervalMs: AUTO_START_POLL_MS,
      timeoutMs: AUTO_START_WAIT_MS,
      isDone: (identity) => identity.kind !== 'unreachable',
      isTransient: () => true,
      clock: this.clock,
      signal: this.closed.signal,
    }).catch(() => null);
    if (this.closed.signal.aborted || fingerprint !== this.fingerprint) return;
    this.checkedAt = this.clock.now();
    if (polled?.status === 'done' && this.attach(client, polled.value)) {
      this.options.logger.info(
        `OpenViking server at ${settings.endpoint} is reachable; OpenViking memory is active for later turns.`,
      );
      return;
    }
    if (this.state === 'starting')
      this.fail('unreachable', `openviking-server did not answer within ${AUTO_START_WAIT_MS / 1000} s`);
    this.options.logger.warn(
      `OpenViking server at ${settings.endpoint} did not become reachable within ${AUTO_START_WAIT_MS / 1000} s; see ${this.options.hermesHome}/logs/openviking-server.log.`,
    );
  }
}
