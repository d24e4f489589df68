import { loadPackage } from '../packages';
/**
 * The slice of `@hermes-memory/builtin`'s SessionStore the bench drives. The package is written in
 * parallel, so it is loaded at run time and checked against this shape; a missing export makes the
 * retriever "unavailable" (reported) rather than breaking the other suites.
 */
export interface SessionStoreLike {
  createSession(sessionId: string, options?: { source?: string; startedAt?: number }): string;
  appendMessage(
    sessionId: string,
    message: { role: string; content?: string | null; timestamp?: number },
  ): number;
  appendMessages?(
    sessionId: string,
    messages: ReadonlyArray<{ role: string; content?: string | null; timestamp?: number }>,
  ): number[];
  searchMessages(query: string, options?: { limit?: number }): Array<{ id: number; session_id: string }>;
  close(): void;
}

export type SessionStoreCtor = new (options: { dbPath?: string; hermesHome?: string }) => SessionStoreLike;

export async function loadSessionStoreClass(): Promise<SessionStoreCtor> {
  const mod = await loadPackage('@hermes-memory/builtin');
  const ctor = mod['SessionStore'];
  if (typeof ctor !== 'function') throw new Error('@hermes-memory/builtin does not export SessionStore yet');
  const proto = (ctor as { prototype: Record<string, unknown> }).prototype;
  for (const m of ['createSession', 'appendMessage', 'searchMessages', 'close']) {
    if (typeof proto[m] !== 'function') throw new Error(`@hermes-memory/builtin SessionStore has no ${m}()`);
  }
  return ctor as SessionStoreCtor;
}
