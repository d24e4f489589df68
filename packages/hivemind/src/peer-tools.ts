/**
 * The six peer tools (the reference's §5.7), over the directory the background syncs keep: what
 * each reads or sends, its JSON answer, and the rules that keep a peer's text from travelling on
 * unchecked. The provider syncs before calling them and neutralises the fence in their answers.
 */
import {
  optionalString,
  requiredString,
  scanWrite,
  type ToolArgs,
  toolError,
  toolResult,
} from '@hermes-memory/core';
import type { MatrixClient } from './matrix/client';
import { agentFacing, type PeerDirectory, type StoredPeer } from './peers';
import { TOOLS } from './prompt';
import type { SparkEngine } from './sparks';

/** What a peer tool works with. */
export interface PeerToolContext {
  client: MatrixClient;
  directory: PeerDirectory;
  sparks: SparkEngine;
  /** Whether this agent may send (only the primary agent talks to peers). */
  writable: boolean;
  /** Newest messages `hivemind_check_messages` returns per peer. */
  messageLimit: number;
}

/** One peer tool's JSON answer; an unknown peer or a bad argument throws (the provider's guard answers it). */
export async function runPeerTool(
  toolName: string,
  args: ToolArgs,
  { client, directory, sparks, writable, messageLimit }: PeerToolContext,
  signal: AbortSignal,
): Promise<string> {
  const find = (key: string): StoredPeer => {
    const name = requiredString(args, key).trim();
    const peer = directory.resolve(name);
    if (!peer) throw new UnknownPeer(name);
    return peer;
  };
  switch (toolName) {
    case TOOLS.listPeers: {
      const peers = directory.peers().map(agentFacing);
      const suggestions = sparks
        .pending()
        .map(({ peer_a, peer_b, reason, confidence }) => ({ peer_a, peer_b, reason, confidence }));
      return toolResult({ success: true, count: peers.length, peers, suggestions });
    }
    case TOOLS.getPeerInfo: {
      const peer = find('peer');
      return toolResult({
        success: true,
        peer: { ...agentFacing(peer), unread: directory.unreadFrom(peer), ...summaryFields(sparks, peer) },
      });
    }
    case TOOLS.checkMessages: {
      const limit = messageLimit;
      const name = optionalString(args, 'peer')?.trim();
      if (name) {
        const peer = find('peer');
        return toolResult({
          success: true,
          peer: peer.peer_name,
          messages: await directory.messages(peer, limit, signal),
        });
      }
      const conversations = [];
      for (const peer of directory.peers()) {
        conversations.push({
          peer: peer.peer_name,
          messages: await directory.messages(peer, limit, signal),
        });
      }
      return toolResult({ success: true, conversations });
    }
    case TOOLS.sendToPeer: {
      if (!writable) return readOnly();
      const peer = find('peer');
      const message = requiredString(args, 'message').trim();
      if (message === '') return toolError("'message' must not be empty.");
      // What a peer receives becomes part of its prompt: refuse what core's scanner blocks.
      const scan = scanWrite(message);
      if (!scan.ok) return toolError(scan.message);
      await client.send(peer.room_id, 'm.room.message', { msgtype: 'm.text', body: message }, signal);
      return toolResult({ success: true, sent: true, to: peer.peer_name });
    }
    case TOOLS.introducePeers: {
      if (!writable) return readOnly();
      const reason = optionalString(args, 'reason')?.trim() ?? '';
      if (reason !== '') {
        const scan = scanWrite(reason);
        if (!scan.ok) return toolError(scan.message);
      }
      const a = find('peer_a');
      const b = find('peer_b');
      if (a.peer_id === b.peer_id) return toolError('Introduce two different peers.');
      const roomId = await client.createRoom(
        {
          name: `Introduction: ${a.peer_name} <> ${b.peer_name}`,
          preset: 'private_chat',
          invite: [a.peer_id, b.peer_id],
        },
        signal,
      );
      const lines = [
        about(a, sparks.summaryOf(a)?.summary_text),
        about(b, sparks.summaryOf(b)?.summary_text),
      ];
      for (const line of [...lines, ...(reason ? [`Why: ${reason}`] : [])]) {
        await client.send(roomId, 'm.room.message', { msgtype: 'm.text', body: line }, signal);
      }
      await sparks.setStatus(a.peer_name, b.peer_name, 'executed', signal);
      return toolResult({ success: true, introduced: true, peer_a: a.peer_name, peer_b: b.peer_name });
    }
    case TOOLS.dismissSpark: {
      if (!writable) return readOnly();
      // Suggestions name peers as the engine saw them: a known peer resolves, any other name is kept.
      const name = (key: string) => {
        const given = requiredString(args, key).trim();
        return directory.resolve(given)?.peer_name ?? given;
      };
      const [a, b] = [name('peer_a'), name('peer_b')];
      if (a === '' || b === '' || a === b) return toolError('Name two different peers.');
      await sparks.setStatus(a, b, 'dismissed', signal);
      return toolResult({ success: true, dismissed: true, peer_a: a, peer_b: b });
    }
    default:
      return toolError(`Unknown tool '${toolName}' for the hivemind provider.`);
  }
}

class UnknownPeer extends Error {
  constructor(name: string) {
    super(`Unknown peer: ${name}. Use hivemind_list_peers to see who you know.`);
  }
}

const readOnly = () =>
  toolError('Hivemind is read-only in this context (only the primary agent talks to peers).');

/**
 * "About <mxid>: <context>" — the line the introduced peer's side extracts. A context another peer
 * wrote is forwarded only if the write scanner lets it through.
 */
function about(peer: StoredPeer, summary?: string): string {
  const context = (summary || peer.context).trim();
  const safe =
    context !== '' && scanWrite(context).ok ? context : `${peer.peer_name} (no details were shared).`;
  return `About ${peer.peer_id}: ${safe}`;
}

/** A peer's summary for `hivemind_get_peer_info`, when the spark engine wrote one. */
function summaryFields(sparks: SparkEngine, peer: StoredPeer): Record<string, unknown> {
  const summary = sparks.summaryOf(peer);
  if (!summary) return {};
  return {
    needs: summary.needs,
    offers: summary.offers,
    expertise: summary.expertise,
    summary: summary.summary_text,
  };
}

export function addNote(answer: string, note: string): string {
  try {
    const parsed = JSON.parse(answer) as Record<string, unknown>;
    return toolResult({ ...parsed, note });
  } catch {
    return answer;
  }
}
