/** Test wiring: a temp HERMES_HOME, the shipped fake on a free port, and a provider pointed at it. */
import { type Clock, type InitContext, silentLogger } from '@hermes-memory/core';
import { type TempHermesHome, tempHermesHome } from '@hermes-memory/testkit';
import type { JsonObject } from '../src/config/values';
import { HonchoProvider, type HonchoProviderSettings } from '../src/index';
import { type FakeHoncho, startFakeHoncho } from '../src/testing/index';

export const API_KEY = 'hk-test-secret-0123456789';
export const WORKSPACE = 'hermes';

export interface Rig {
  home: TempHermesHome;
  fake: FakeHoncho;
  /** A provider on the fake; `config` is laid over a baseline honcho.json. */
  provider(config?: JsonObject, settings?: HonchoProviderSettings): HonchoProvider;
  /** `initialize` with a primary CLI context unless overridden. */
  init(provider: HonchoProvider, sessionId?: string, context?: Partial<InitContext>): Promise<void>;
  close(): Promise<void>;
}

export async function startRig(options: { clock?: Clock } = {}): Promise<Rig> {
  const home = tempHermesHome('honcho-test-');
  const fake = await startFakeHoncho({ apiKey: API_KEY });
  const providers: HonchoProvider[] = [];
  return {
    home,
    fake,
    provider(config = {}, settings = {}) {
      const provider = new HonchoProvider(
        {
          cwd: '/srv/projects/demo',
          userHome: home.path,
          ...(options.clock ? { clock: options.clock } : {}),
          ...settings,
          config: { apiKey: API_KEY, baseUrl: fake.url, peerName: 'alice', timeout: 5, ...config },
        },
        { hermesHome: home.path, env: {} },
      );
      providers.push(provider);
      return provider;
    },
    async init(provider, sessionId = 'session-1', context = {}) {
      await provider.initialize(sessionId, {
        hermesHome: home.path,
        platform: 'cli',
        agentContext: 'primary',
        logger: silentLogger,
        env: {},
        ...context,
      });
    },
    async close() {
      for (const p of providers) await p.shutdown({ timeoutMs: 1000 }).catch(() => undefined);
      await fake.close();
      home.cleanup();
    },
  };
}
