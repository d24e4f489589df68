import type { Mem0Hit } from '../text';

export interface Mem0Message {
  role: 'user' | 'assistant';
  content: string;
}

export interface SearchRequest {
  query: string;
  userId: string;
  topK: number;
  rerank: boolean;
}

export interface AddRequest {
  messages: Mem0Message[];
  userId: string;
  agentId: string;
  infer: boolean;
  /** Left out of the request entirely when empty, as the reference does for older servers. */
  metadata?: Readonly<Record<string, unknown>>;
  /**
   * When the write was accepted (Unix seconds), for one delivered late from the outbox: the
   * Platform records the memory at that time (its documented `timestamp`). Never journaled; other
   * backends do not send it (decision 0910).
   */
  timestamp?: number;
}

export interface AddResult {
  /** The Platform queues adds and answers with an event id; self-hosted servers store at once. */
  eventId?: string;
  queued: boolean;
}

/**
 * One Mem0 deployment. Every call takes a signal that aborts at its deadline; a backend that
 * cannot cancel (the Platform SDK takes no signal) stops waiting at the abort and abandons the call.
 */
export interface Mem0Backend {
  readonly kind: 'platform' | 'selfhosted' | 'oss';
  search(request: SearchRequest, signal: AbortSignal): Promise<Mem0Hit[]>;
  add(request: AddRequest, signal: AbortSignal): Promise<AddResult>;
  update(memoryId: string, text: string, signal: AbortSignal): Promise<void>;
  delete(memoryId: string, signal: AbortSignal): Promise<void>;
  /** Every memory of a user, page by page (export). */
  list(userId: string, signal: AbortSignal): Promise<Mem0Hit[]>;
  /** One cheap authenticated request (setup and doctor). */
  ping(signal: AbortSignal): Promise<void>;
  close(): Promise<void>;
}
