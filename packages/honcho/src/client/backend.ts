/**
 * The Honcho calls the provider makes, each one through the official SDK and each with the
 * caller's signal. Peer and session handles are cached per SDK client (the SDK's `peer()` and
 * `session()` are get-or-create POSTs), so a warm turn does not repeat them.
 */
import type { Message, Peer, Session } from '@honcho-ai/sdk';
import type { ObservationFlags, ReasoningLevel } from '../config/types';
import type { HonchoClient } from './honcho-client';

export interface PeerView {
  representation: string;
  card: string[];
}

export interface FoundMessage {
  id: string;
  content: string;
  peerId: string;
  sessionId: string;
  createdAt: string;
}

export interface ConclusionItem {
  id: string;
  content: string;
}

export interface OpenedSession {
  /** The observation flags the server holds (server wins over config). */
  observation: ObservationFlags;
  /** Messages already in the session. */
  messageCount: number;
}

function found(m: Message): FoundMessage {
  return {
    id: m.id,
    content: m.content,
    peerId: m.peerId,
    sessionId: m.sessionId,
    createdAt: String(m.createdAt),
  };
}

export class HonchoBackend {
  private epoch = -1;
  private peers = new Map<string, Promise<Peer>>();
  private sessions = new Map<string, Promise<Session>>();

  constructor(readonly client: HonchoClient) {}

  get workspaceId(): string {
    return this.client.workspaceId;
  }

  /** Drop handles of an older SDK client (it was rebuilt after a failed workspace creation). */
  private fresh(): void {
    if (this.client.epoch !== this.epoch) {
      this.epoch = this.client.epoch;
      this.peers.clear();
      this.sessions.clear();
    }
  }

  private peer(id: string, signal: AbortSignal | undefined): Promise<Peer> {
    this.fresh();
    let handle = this.peers.get(id);
    if (!handle) {
      handle = this.client.call(signal, (sdk) => sdk.peer(id));
      this.peers.set(id, handle);
      handle.catch(() => this.peers.delete(id));
    }
    return handle;
  }

  private session(id: string, signal: AbortSignal | undefined): Promise<Session> {
    this.fresh();
    let handle = this.sessions.get(id);
    if (!handle) {
      handle = this.client.call(signal, (sdk) => sdk.session(id));
      this.sessions.set(id, handle);
      handle.catch(() => this.sessions.delete(id));
    }
    return handle;
  }

  /** Get-or-create the session with both peers and their observation flags; read the flags back. */
  async openSession(
    sessionId: string,
    userPeerId: string,
    aiPeerId: string,
    observation: ObservationFlags,
    signal?: AbortSignal,
  ): Promise<OpenedSession> {
    const [user, ai] = await Promise.all([this.peer(userPeerId, signal), this.peer(aiPeerId, signal)]);
    const session = await this.session(sessionId, signal);
    return this.client.call(signal, async () => {
      await session.addPeers([
        [user, { observeMe: observation.userObserveMe, observeOthers: observation.userObserveOthers }],
        [ai, { observeMe: observation.aiObserveMe, observeOthers: observation.aiObserveOthers }],
      ]);
      const [userConfig, aiConfig] = await Promise.all([
        session.getPeerConfiguration(user),
        session.getPeerConfiguration(ai),
      ]);
      const context = await session.context({ summary: true });
      return {
        observation: {
          userObserveMe: userConfig.observeMe ?? observation.userObserveMe,
          userObserveOthers: userConfig.observeOthers ?? observation.userObserveOthers,
          aiObserveMe: aiConfig.observeMe ?? observation.aiObserveMe,
          aiObserveOthers: aiConfig.observeOthers ?? observation.aiObserveOthers,
        },
        messageCount: context.messages.length,
      };
    });
  }

  async addMessages(
    sessionId: string,
    messages: ReadonlyArray<{ peerId: string; content: string; createdAt?: string }>,
    signal?: AbortSignal,
  ): Promise<void> {
    const session = await this.session(sessionId, signal);
    await this.client.call(signal, () =>
      session.addMessages(
        messages.map((m) => ({
          peerId: m.peerId,
          content: m.content,
          ...(m.createdAt ? { createdAt: m.createdAt } : {}),
        })),
      ),
    );
  }

  /** The session summary and recent messages (`session.context(summary=True)`). */
  async sessionContext(
    sessionId: string,
    signal?: AbortSignal,
  ): Promise<{ summary: string; messages: FoundMessage[] }> {
    const session = await this.session(sessionId, signal);
    const context = await this.client.call(signal, () => session.context({ summary: true }));
    return { summary: context.summary?.content ?? '', messages: context.messages.map(found) };
  }

  /** What `observer` knows about `target` (representation and card), optionally focused on a query. */
  async peerView(
    observer: string,
    target: string,
    searchQuery?: string,
    signal?: AbortSignal,
  ): Promise<PeerView> {
    const peer = await this.peer(observer, signal);
    const context = await this.client.call(signal, () =>
      peer.context({ ...(target !== observer ? { target } : {}), ...(searchQuery ? { searchQuery } : {}) }),
    );
    return { representation: context.representation ?? '', card: context.peerCard ?? [] };
  }

  async chat(
    observer: string,
    target: string,
    query: string,
    level: ReasoningLevel | undefined,
    signal?: AbortSignal,
  ): Promise<string> {
    const peer = await this.peer(observer, signal);
    const answer = await this.client.call(signal, () =>
      peer.chat(query, {
        ...(target !== observer ? { target } : {}),
        ...(level ? { reasoningLevel: level } : {}),
      }),
    );
    return typeof answer === 'string' ? answer : '';
  }

  /** Messages seen from `perspective` (workspace search with the peer_perspective filter). */
  async search(
    query: string,
    perspective: string,
    limit: number,
    signal?: AbortSignal,
  ): Promise<FoundMessage[]> {
    const results = await this.client.call(signal, (sdk) =>
      sdk.search(query, { filters: { peer_perspective: perspective }, limit }),
    );
    return results.map(found);
  }

  /** The older fallback: the peer's own messages. */
  async peerSearch(
    peerId: string,
    query: string,
    limit: number,
    signal?: AbortSignal,
  ): Promise<FoundMessage[]> {
    const peer = await this.peer(peerId, signal);
    const results = await this.client.call(signal, () => peer.search(query, { limit }));
    return results.map(found);
  }

  async getCard(observer: string, target: string, signal?: AbortSignal): Promise<string[]> {
    const peer = await this.peer(observer, signal);
    const card = await this.client.call(signal, () => peer.getCard(target !== observer ? target : undefined));
    return card ?? [];
  }

  async setCard(
    observer: string,
    target: string,
    card: readonly string[],
    signal?: AbortSignal,
  ): Promise<string[]> {
    const peer = await this.peer(observer, signal);
    const saved = await this.client.call(signal, () =>
      peer.setCard([...card], target !== observer ? target : undefined),
    );
    return saved ?? [...card];
  }

  async createConclusion(
    observer: string,
    target: string,
    content: string,
    sessionId: string | undefined,
    signal?: AbortSignal,
  ): Promise<ConclusionItem> {
    const peer = await this.peer(observer, signal);
    await this.peer(target, signal);
    const [created] = await this.client.call(signal, () =>
      peer.conclusionsOf(target).create({ content, ...(sessionId ? { sessionId } : {}) }),
    );
    return { id: created?.id ?? '', content };
  }

  async deleteConclusion(observer: string, target: string, id: string, signal?: AbortSignal): Promise<void> {
    const peer = await this.peer(observer, signal);
    await this.client.call(signal, () => peer.conclusionsOf(target).delete(id));
  }

  async listConclusions(
    observer: string,
    target: string,
    query: string | undefined,
    limit: number,
    signal?: AbortSignal,
  ): Promise<ConclusionItem[]> {
    const peer = await this.peer(observer, signal);
    const view = peer.conclusionsOf(target);
    const items = await this.client.call(signal, async () =>
      query ? await view.query(query, limit) : (await view.list({ size: limit })).items,
    );
    return items.map((c) => ({ id: c.id, content: c.content }));
  }

  /**
   * Get-or-create a side session (the migration's marker) with both peers, neither observing the
   * other; a peer's `observeMe` is false when `optOut` says so or the server already holds false
   * for it (as a peer or in this session), else left to the server's default.
   */
  async openSideSession(
    sessionId: string,
    metadata: Record<string, string>,
    peers: ReadonlyArray<{ id: string; optOut: boolean }>,
    signal?: AbortSignal,
  ): Promise<void> {
    this.fresh();
    const session = this.client.call(signal, (sdk) => sdk.session(sessionId, { metadata }));
    this.sessions.set(sessionId, session);
    session.catch(() => this.sessions.delete(sessionId));
    const marker = await session;
    const handles = await Promise.all(peers.map((p) => this.peer(p.id, signal)));
    const additions = await this.client.call(signal, async () => {
      const members = new Set((await marker.peers()).map((p) => p.id));
      return Promise.all(
        peers.map(async ({ id, optOut }, i) => {
          const [asPeer, inSession] = await Promise.all([
            handles[i]!.getConfiguration(),
            members.has(id) ? marker.getPeerConfiguration(id) : undefined,
          ]);
          const off = optOut || asPeer.observeMe === false || inSession?.observeMe === false;
          return [handles[i]!, { ...(off ? { observeMe: false } : {}), observeOthers: false }] as const;
        }),
      );
    });
    await this.client.call(signal, () => marker.addPeers(additions.map(([p, c]) => [p, c])));
  }

  /** Whether a session holds a message whose metadata contains `metadata` (one page of one). */
  async hasMessageWith(
    sessionId: string,
    metadata: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<boolean> {
    const session = await this.session(sessionId, signal);
    const page = await this.client.call(signal, () =>
      session.messages({ filters: { metadata }, page: 1, size: 1 }),
    );
    return page.items.length > 0;
  }

  /** Upload a text file as messages of `peerId` in a session (the memory-file migration). */
  async uploadText(
    sessionId: string,
    peerId: string,
    fileName: string,
    text: string,
    metadata: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<void> {
    const session = await this.session(sessionId, signal);
    await this.client.call(signal, () =>
      session.uploadFile(
        { filename: fileName, content: Buffer.from(text, 'utf8'), content_type: 'text/plain' },
        peerId,
        { metadata },
      ),
    );
  }
}
