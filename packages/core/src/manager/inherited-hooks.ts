import { MemoryProvider } from '../provider/memory-provider';

/** The hooks the manager runs on each provider's queue every turn. */
export type QueuedHook = 'syncTurn' | 'queuePrefetch' | 'onMemoryWrite';

/**
 * Whether `provider` does anything in `hook`: false when it inherits the base class's no-op.
 * The manager queues nothing for such a hook, so a provider that never stores turns (hivemind)
 * holds no queue slots for them, and a call of its own that hangs never turns no-ops into
 * "dropped" work in a warning and a degraded health. A provider built on another copy of core,
 * or a plain object, counts as doing something: it is queued as before.
 */
export function runsHook(provider: MemoryProvider, hook: QueuedHook): boolean {
  return provider[hook] !== MemoryProvider.prototype[hook];
}
