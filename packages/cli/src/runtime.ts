import { type BuiltinProvider, createBuiltinProvider, newSessionId } from '@hermes-memory/builtin';
import {
  type Logger,
  MemoryManager,
  type MemoryProvider,
  createLogger,
  describeError,
  loadHermesConfig,
  resolveEnv,
} from '@hermes-memory/core';
import { loadProvider } from './providers';

export interface OpenedManager {
  manager: MemoryManager;
  builtin: BuiltinProvider;
  external: MemoryProvider | undefined;
  /** Providers from `memory.secondary` that joined read-only (tiered memory, decision 0130). */
  secondaries: MemoryProvider[];
  sessionId: string;
}

/**
 * A manager wired the way an agent wires it: builtin first, then the provider config.yaml names
 * (if it loads and is available), then each `memory.secondary` provider read-only. A provider
 * that is not installed, fails to load or is unavailable is warned about and left out; the rest
 * carry on. Logs go
 * to stderr, never stdout (stdout may carry MCP frames).
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
  for (const problem of config.memory.problems) logger.warn(`config.yaml: ${problem.message}`);
  const manager = new MemoryManager({ logger, recallBudgetChars: config.memory.recallBudgetChars });
  const builtin = createBuiltinProvider({ hermesHome: home });
  manager.addProvider(builtin);
  let external: MemoryProvider | undefined;
  // A provider that is not installed or fails to load is warned about like an unavailable one:
  // the agent keeps its built-in memory rather than not starting at all.
  const loaded = config.memory.provider
    ? await loadProvider(config.memory.provider, options.cwd, home).catch((error: unknown) => {
        logger.warn(`${describeError(error)} Continuing with built-in memory only.`);
        return undefined;
      })
    : undefined;
  if (loaded) {
    if (loaded.provider.isAvailable()) {
      if (manager.addProvider(loaded.provider)) external = loaded.provider;
    } else {
      const why = loaded.provider.unavailableReason();
      logger.warn(
        `Memory provider '${loaded.name}' is not available${why ? `: ${why}` : ''}; continuing with built-in memory only.`,
      );
    }
  }
  const secondaries: MemoryProvider[] = [];
  for (const entry of config.memory.secondary) {
    try {
      const loaded = await loadProvider(entry.provider, options.cwd, home);
      if (!loaded.provider.isAvailable()) {
        const why = loaded.provider.unavailableReason();
        logger.warn(
          `Secondary memory provider '${loaded.name}' is not available${why ? `: ${why}` : ''}; skipped.`,
        );
        continue;
      }
      const added = manager.addProvider(loaded.provider, {
        role: 'secondary',
        ...(entry.prefetchTimeoutMs ? { prefetchTimeoutMs: entry.prefetchTimeoutMs } : {}),
      });
      if (added) secondaries.push(loaded.provider);
    } catch (error) {
      logger.warn(
        `Secondary memory provider '${entry.provider}' could not be loaded; skipped: ${describeError(error)}`,
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
  return { manager, builtin, external, secondaries, sessionId };
}

/** The frozen MEMORY + USER blocks exactly as the system prompt shows them at session start. */
export function frozenSnapshot(builtin: BuiltinProvider): string {
  const store = builtin.memoryStore;
  if (!store) return '';
  return [store.formatForSystemPrompt('memory'), store.formatForSystemPrompt('user')]
    .filter((b): b is string => !!b)
    .join('\n\n');
}
