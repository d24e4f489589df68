import {
  type Clock,
  type ClockTimer,
  describeError,
  type Logger,
  silentLogger,
  systemClock,
} from '@hermes-memory/core';
import type { MatrixClient } from './matrix/client';
import { agentFacingId, localpartOf, type MatrixEvent } from './matrix/types';

/** Room account data key of a peer's metadata (the reference's shape, §5.4). */
export const PEER_KEY = 'social.awareness.peer';
/** What the agent is told instead of an encrypted message's text. */
export const UNREADABLE = '[This message is end-to-end encrypted and could not be read.]';
/** How many pages of 50 the introduction context is looked for in (newest first). */
const CONTEXT_PAGES = 4;
/** Rooms joined or looked up at once during a refresh. */
const ROOM_CONCURRENCY = 8;

/**
 * `work` over `items`, at most `limit` at a time, results in the items' order. The first failure
 * rejects the whole (as a loop of awaits would) and stops handing out further items.
 */
async function mapWithLimit<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        results[i] = await work(items[i]!);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** `social.awareness.peer` as stored in room account data. */
export interface StoredPeer {
  peer_name: string;
  peer_id: string;
  context: string;
  introduced_by: string;
  introduced_by_id: string;
  introduced_at: string;
  status: 'active';
  room_id: string;
}

/** A peer as the agent sees it: no room id, an opaque `localpart@server` id. */
export interface Peer {
  name: string;
  id: string;
  context: string;
  introduced_by: string;
  introduced_at: string;
  status: string;
}

export interface PeerMessage {
  from: string;
  text: string;
  time: string;
  /** Set when the event was encrypted: `text` then says it could not be read. */
  encrypted?: true;
}

export function agentFacing(peer: StoredPeer): Peer {
  return {
    name: peer.peer_name,
    id: agentFacingId(peer.peer_id),
    context: peer.context,
    introduced_by: peer.introduced_by,
    introduced_at: peer.introduced_at,
    status: peer.status,
  };
}

/** The text of "About <mxid>: …" (multi-line), or null. */
export function introductionContext(event: MatrixEvent, peerId: string): string | null {
  if (event.type !== 'm.room.message') return null;
  const body = event.content.body;
  if (typeof body !== 'string') return null;
  const prefix = `About ${peerId}:`;
  return body.startsWith(prefix) ? body.slice(prefix.length).trim() : null;
}

/** A timeline event as a message the agent may read; null for anything that is not a message. */
export function toPeerMessage(event: MatrixEvent): PeerMessage | null {
  const time = new Date(event.origin_server_ts).toISOString();
  const from = localpartOf(event.sender);
  // Never show ciphertext or guess: the agent is told plainly that it could not read this one.
  if (event.type === 'm.room.encrypted') return { from, text: UNREADABLE, time, encrypted: true };
  if (event.type !== 'm.room.message') return null;
  const body = event.content.body;
  if (typeof body !== 'string') return null;
  const msgtype = event.content.msgtype;
  const text =
    msgtype === 'm.text' || msgtype === 'm.notice' || msgtype === undefined
      ? body
      : `[${String(msgtype)}] ${body}`;
  return { from, text, time };
}

const isMessage = (e: MatrixEvent) => e.type === 'm.room.message' || e.type === 'm.room.encrypted';

/**
 * Peers derived from the homeserver (the reference's `get_peers`, §5.3): a peer is another member
 * of a room someone else created and invited me to — the first member that is neither me nor the
 * creator (the introducer), invited members included; when the creator is the only other member,
 * the creator itself (someone who contacted me directly). Rooms I created (my own introductions)
 * hold no peer of mine. Metadata lives in room account data, so a restart rebuilds the directory
 * from the server alone; the sync token and caches are memory only.
 */
export class PeerDirectory {
  /** The sync position; undefined before the first (initial) sync. */
  private since: string | undefined;
  private readonly joined = new Set<string>();
  /** Room → its peer, or null for a room without one (mine, or nobody else in it). */
  private readonly byRoom = new Map<string, StoredPeer | null>();
  private readonly unread = new Map<string, number>();
  /** Room → messages seen in its timeline by the syncs so far (what the spark engine watches). */
  private readonly activityCount = new Map<string, number>();
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  private loadedOnce = false;
  private markSettled: () => void = () => {};
  /** Resolves when the first refresh has finished, whether it loaded the roster or failed. */
  private readonly firstSettled = new Promise<void>((resolve) => {
    this.markSettled = resolve;
  });

  constructor(
    private readonly client: MatrixClient,
    private readonly clock: Clock = systemClock,
    private readonly logger: Logger = silentLogger,
  ) {}

  /** Whether one refresh has completed (the roster is known). */
  get loaded(): boolean {
    return this.loadedOnce;
  }

  /**
   * Resolves when the first refresh has finished — loaded, or failed (a homeserver that refuses or
   * fails costs the first turn its retries, not the whole wait) — or after `timeoutMs`, or when
   * `signal` aborts.
   */
  async waitForFirstRefresh(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (this.loadedOnce || signal?.aborted) return;
    let timer: ClockTimer | undefined;
    let onAbort = () => {};
    await Promise.race([
      this.firstSettled,
      new Promise<void>((resolve) => {
        timer = this.clock.setTimeout(resolve, timeoutMs);
        onAbort = () => resolve();
        signal?.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
    if (timer !== undefined) this.clock.clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }

  /**
   * Sync, join pending invites, resolve peer rooms. What it resolves to reflects the server as of
   * the call or later: a caller arriving while a run is under way gets the next run, which every
   * such caller shares (at most one run waits behind the current one).
   */
  refresh(signal?: AbortSignal): Promise<void> {
    if (!this.running) {
      this.running = this.run(signal).finally(() => {
        this.running = undefined;
        this.markSettled();
      });
      return this.running;
    }
    this.queued ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.refresh(signal);
      });
    return this.queued;
  }

  /** Known peers, one per user (several rooms with the same peer count once), oldest room first. */
  peers(): StoredPeer[] {
    const seen = new Map<string, StoredPeer>();
    for (const peer of this.byRoom.values()) {
      if (peer && !seen.has(peer.peer_id)) seen.set(peer.peer_id, peer);
    }
    return [...seen.values()];
  }

  /**
   * A peer by name — `hermes-of-bob`, `hermes-of-bob@server` or `@hermes-of-bob:server`: the exact
   * name first, then an id starting with it (the reference's rule), then the one peer whose name
   * contains it (`bob`); an ambiguous part matches nobody.
   */
  resolve(name: string): StoredPeer | undefined {
    const wanted = name.trim().replace(/^@/, '').split(/[@:]/)[0]!.toLowerCase();
    if (wanted === '') return undefined;
    const peers = this.peers();
    const exact =
      peers.find((p) => p.peer_name.toLowerCase() === wanted) ??
      peers.find((p) => p.peer_id.toLowerCase().startsWith(`@${wanted}`));
    if (exact) return exact;
    const partial = peers.filter((p) => p.peer_name.toLowerCase().includes(wanted));
    return partial.length === 1 ? partial[0] : undefined;
  }

  /** How many messages the syncs have seen in the room (grows when its conversation moves on). */
  activity(roomId: string): number {
    return this.activityCount.get(roomId) ?? 0;
  }

  /** Unread messages by peer id, in one pass over the rooms (recall asks for every peer each turn). */
  unreadByPeer(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const [roomId, count] of this.unread) {
      const peer = this.byRoom.get(roomId);
      if (peer && count > 0) counts.set(peer.peer_id, (counts.get(peer.peer_id) ?? 0) + count);
    }
    return counts;
  }

  /** Messages from others that arrived since the peer's messages were last read. */
  unreadFrom(peer: StoredPeer): number {
    let count = 0;
    for (const [roomId, p] of this.byRoom)
      if (p?.peer_id === peer.peer_id) count += this.unread.get(roomId) ?? 0;
    return count;
  }

  /** The newest `limit` messages with the peer (every room shared with them), newest first. */
  async messages(peer: StoredPeer, limit: number, signal?: AbortSignal): Promise<PeerMessage[]> {
    const rooms = [...this.byRoom].filter(([, p]) => p?.peer_id === peer.peer_id).map(([roomId]) => roomId);
    const events: MatrixEvent[] = [];
    for (const roomId of rooms) {
      events.push(...(await this.client.messages(roomId, limit, signal)));
      this.unread.delete(roomId);
    }
    return events
      .sort((a, b) => b.origin_server_ts - a.origin_server_ts)
      .map(toPeerMessage)
      .filter((m): m is PeerMessage => m !== null)
      .slice(0, limit);
  }

  private async run(signal?: AbortSignal): Promise<void> {
    const initial = this.since === undefined;
    const body = await this.client.sync(this.since, signal);
    const rooms = body?.rooms ?? {};
    const updated: StoredPeer[] = [];
    // Peer metadata a full sync carried in room account data: no request per room to read it back.
    const synced = new Map<string, StoredPeer>();
    for (const [roomId, room] of Object.entries(rooms.join ?? {})) {
      this.joined.add(roomId);
      const timeline = Array.isArray(room?.timeline?.events) ? room.timeline.events : [];
      const messages = timeline.filter(isMessage).length;
      if (messages > 0) this.activityCount.set(roomId, (this.activityCount.get(roomId) ?? 0) + messages);
      if (!initial) updated.push(...this.noteTimeline(roomId, timeline));
      const stored = room?.account_data?.events?.find((e) => e?.type === PEER_KEY)?.content ?? null;
      if (isStoredPeer(stored)) synced.set(roomId, { ...stored, room_id: roomId });
    }
    for (const peer of updated) await this.store(peer, signal);
    for (const roomId of Object.keys(rooms.leave ?? {})) {
      this.joined.delete(roomId);
      this.byRoom.delete(roomId);
      this.unread.delete(roomId);
    }
    // A few rooms at a time: an agent with many introductions should not wait one round trip per
    // room in turn. Results are applied in room order, so the roster's order does not depend on
    // which request answered first.
    const invites = Object.keys(rooms.invite ?? {});
    const accepted = await mapWithLimit(invites, ROOM_CONCURRENCY, async (roomId) => {
      try {
        await this.client.join(roomId, signal);
        return true;
      } catch (error) {
        this.logger.warn(`Hivemind: could not accept an introduction: ${describeError(error)}`);
        return false;
      }
    });
    for (const [i, roomId] of invites.entries()) if (accepted[i]) this.joined.add(roomId);
    const unknown = [...this.joined].filter((roomId) => !this.byRoom.has(roomId));
    const found = await mapWithLimit(
      unknown,
      ROOM_CONCURRENCY,
      async (roomId) => synced.get(roomId) ?? (await this.peerOf(roomId, signal)),
    );
    for (const [i, roomId] of unknown.entries()) this.byRoom.set(roomId, found[i] ?? null);
    if (typeof body?.next_batch === 'string') this.since = body.next_batch;
    this.loadedOnce = true;
  }

  /** New messages from others count as unread; a late "About" message fills an empty context. */
  private noteTimeline(roomId: string, events: readonly MatrixEvent[]): StoredPeer[] {
    const peer = this.byRoom.get(roomId);
    let filled = false;
    for (const event of events) {
      if (event.sender !== this.client.userId && isMessage(event)) {
        this.unread.set(roomId, (this.unread.get(roomId) ?? 0) + 1);
      }
      if (peer && peer.context === '') {
        const context = introductionContext(event, peer.peer_id);
        if (context) {
          peer.context = context;
          filled = true;
        }
      }
    }
    return peer && filled ? [peer] : [];
  }

  /** The room's peer: from account data when stored before, else derived and stored. */
  private async peerOf(roomId: string, signal?: AbortSignal): Promise<StoredPeer | null> {
    const stored = await this.client.getRoomAccountData<Partial<StoredPeer>>(roomId, PEER_KEY, signal);
    if (isStoredPeer(stored)) return { ...stored, room_id: roomId };
    const peer = await this.derive(roomId, signal);
    if (peer) await this.store(peer, signal);
    return peer;
  }

  private async derive(roomId: string, signal?: AbortSignal): Promise<StoredPeer | null> {
    const state = await this.client.state(roomId, signal);
    const create = state.find((e) => e.type === 'm.room.create');
    const creator =
      typeof create?.content.creator === 'string' ? create.content.creator : (create?.sender ?? undefined);
    const me = this.client.userId;
    if (creator === me) return null;
    const members = (await this.client.members(roomId, signal)).filter(
      (e) => e.content.membership === 'join' || e.content.membership === 'invite',
    );
    const ids = members
      .map((e) => e.state_key)
      .filter((id): id is string => typeof id === 'string' && id !== me);
    const peerId =
      ids.find((id) => id !== creator) ?? (creator && ids.includes(creator) ? creator : undefined);
    if (!peerId) return null;
    let context = '';
    for (const event of await this.client.messages(roomId, 50, signal, CONTEXT_PAGES)) {
      const found = introductionContext(event, peerId);
      if (found !== null) {
        context = found;
        break;
      }
    }
    const introducer = creator ?? '';
    return {
      peer_name: localpartOf(peerId),
      peer_id: peerId,
      context,
      introduced_by: introducer === '' ? 'unknown' : localpartOf(introducer),
      introduced_by_id: introducer,
      introduced_at: new Date(this.clock.now()).toISOString(),
      status: 'active',
      room_id: roomId,
    };
  }

  /** Persist metadata; a failure only costs a re-derivation after the next restart. */
  private async store(peer: StoredPeer, signal?: AbortSignal): Promise<void> {
    try {
      await this.client.setRoomAccountData(peer.room_id, PEER_KEY, peer, signal);
    } catch (error) {
      this.logger.warn(`Hivemind: could not store peer metadata: ${describeError(error)}`);
    }
  }
}

function isStoredPeer(value: Partial<StoredPeer> | Record<string, unknown> | null): value is StoredPeer {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof value.peer_id === 'string' &&
    typeof value.peer_name === 'string' &&
    typeof value.context === 'string'
  );
}
