import { type BuiltinProvider, createBuiltinProvider, newSessionId } from '@hermes-memory/builtin';
import {
  type Logger,
  MemoryManager,
  type MemoryProvider,
  createLogger,
  loadHermesConfig,
  resolveEnv,
} from '@hermes-memory/core';
import { loadProvider } from './providers';

export interface OpenedManager {
  manager: MemoryManager;
  builtin: BuiltinProvider;
  external: MemoryProvider | undefined;
  sessionId: string;
}

/**
 * A manager wired the way an agent wires it: builtin first, then the provider config.yaml names
 * (if it loads and is available). Logs go to stderr, never stdout (stdout may carry MCP frames).
 */
export async function openManager(
  home: string,
  options: {
    platform: string;
    env: Readonly<Record<string, string | undefined>>;
    cwd: string;
    logger?: Logger;
  },
): Promise<OpenedManager> {
  const config = loadHermesConfig(home);
  const env = resolveEnv(home, options.env);
  const logger =
    options.logger ??
    createLogger({ level: options.env.HERMES_MEMORY_DEBUG ? 'debug' : 'warn', name: 'hermes-memory' });
  const manager = new MemoryManager({ logger });
  const builtin = createBuiltinProvider({ hermesHome: home });
  manager.addProvider(builtin);
  let external: MemoryProvider | undefined;
  if (config.memory.provider) {
    const loaded = await loadProvider(config.memory.provider, options.cwd, home);
    if (loaded.provider.isAvailable()) {
      if (manager.addProvider(loaded.provider)) external = loaded.provider;
    } else {
      const why = loaded.provider.unavailableReason();
      logger.warn(
        `Memory provider '${loaded.name}' is not available${why ? `: ${why}` : ''}; continuing with built-in memory only.`,
      );
    }
  }
  const sessionId = newSessionId();
  await manager.initializeAll(sessionId, {
    hermesHome: home,
    platform: options.platform,
    config,
    env,
    logger,
  });
  return { manager, builtin, external, sessionId };
}

/** The frozen MEMORY + USER blocks exactly as the system prompt shows them at session start. */
export function frozenSnapshot(builtin: BuiltinProvider): string {
  const store = builtin.memoryStore;
  if (!store) return '';
  return [store.formatForSystemPrompt('memory'), store.formatForSystemPrompt('user')]
    .filter((b): b is string => !!b)
    .join('\n\n');
}
