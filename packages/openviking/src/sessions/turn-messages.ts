import type { ChatMessage } from '@hermes-memory/core';
import type { VikingMessage, VikingPart } from '../client';

/** Recall tools: what they return is already memory, so it is never uploaded again. */
export const RECALL_TOOLS = new Set(['viking_search', 'viking_read', 'viking_browse']);
/** Each side of the plain-text fallback is cut here. */
export const PLAIN_TEXT_LIMIT = 4000;

/**
 * The current turn as OpenViking session messages: the slice of the transcript from the user
 * message to the assistant reply (the user text replaced by its cleaned form), tool calls as
 * structured tool parts — a call whose result is in the slice only through that result, consecutive
 * results grouped into one assistant message — recall tools dropped, and assistant messages tagged
 * with the agent's peer id. Without a transcript (or when the reply is not in it): the two texts.
 */
export function turnMessages(
  user: string,
  assistant: string,
  transcript: readonly ChatMessage[] | undefined,
  agent: string,
): VikingMessage[] {
  const slice = currentTurn(transcript ?? [], assistant);
  if (!slice) return plainTurn(user, assistant, agent, Number.POSITIVE_INFINITY);
  const results = new Map<string, ChatMessage>();
  for (const m of slice) if (m.role === 'tool' && m.tool_call_id) results.set(m.tool_call_id, m);
  const callNames = new Map<string, { name: string; input: Record<string, unknown> }>();
  const out: VikingMessage[] = [];
  const assistantMessage = (parts: VikingPart[]): VikingMessage => ({
    role: 'assistant',
    parts,
    ...(agent ? { peer_id: agent } : {}),
  });
  let firstUser = true;
  let pendingResults: VikingPart[] = [];
  const flushResults = () => {
    if (pendingResults.length > 0) out.push(assistantMessage(pendingResults));
    pendingResults = [];
  };
  for (const message of slice) {
    if (message.role === 'tool') {
      const call = message.tool_call_id ? callNames.get(message.tool_call_id) : undefined;
      if (!call || RECALL_TOOLS.has(call.name)) continue;
      const output = textOf(message.content);
      pendingResults.push({
        type: 'tool',
        tool_id: message.tool_call_id!,
        tool_name: call.name,
        tool_input: call.input,
        tool_status: looksLikeError(output) ? 'error' : 'completed',
        tool_output: output,
      });
      continue;
    }
    flushResults();
    if (message.role === 'user') {
      const text = firstUser ? user : textOf(message.content);
      firstUser = false;
      if (text.trim() !== '') out.push({ role: 'user', parts: [{ type: 'text', text }] });
      continue;
    }
    if (message.role !== 'assistant') continue;
    const parts: VikingPart[] = [];
    const text = textOf(message.content);
    if (text.trim() !== '') parts.push({ type: 'text', text });
    for (const call of message.tool_calls ?? []) {
      const input = parseArguments(call.function.arguments);
      callNames.set(call.id, { name: call.function.name, input });
      if (RECALL_TOOLS.has(call.function.name) || results.has(call.id)) continue;
      parts.push({
        type: 'tool',
        tool_id: call.id,
        tool_name: call.function.name,
        tool_input: input,
        tool_status: 'pending',
      });
    }
    if (parts.length > 0) out.push(assistantMessage(parts));
  }
  flushResults();
  return out.length > 0 ? out : plainTurn(user, assistant, agent, Number.POSITIVE_INFINITY);
}

/** The two-message text form (the fallback when the structured batch is refused). */
export function plainTurn(
  user: string,
  assistant: string,
  agent: string,
  limit = PLAIN_TEXT_LIMIT,
): VikingMessage[] {
  const out: VikingMessage[] = [];
  if (user.trim() !== '') out.push({ role: 'user', parts: [{ type: 'text', text: user.slice(0, limit) }] });
  if (assistant.trim() !== '')
    out.push({
      role: 'assistant',
      parts: [{ type: 'text', text: assistant.slice(0, limit) }],
      ...(agent ? { peer_id: agent } : {}),
    });
  return out;
}

/** From the user message before the last assistant message whose text is the reply, to it. */
function currentTurn(transcript: readonly ChatMessage[], reply: string): ChatMessage[] | null {
  const wanted = reply.trim();
  let end = -1;
  for (let i = transcript.length - 1; i >= 0; i--) {
    const m = transcript[i]!;
    if (m.role === 'assistant' && textOf(m.content).trim() === wanted) {
      end = i;
      break;
    }
  }
  if (end < 0) return null;
  for (let i = end; i >= 0; i--) if (transcript[i]!.role === 'user') return transcript.slice(i, end + 1);
  return null;
}

function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p) =>
      p.type === 'text' && typeof (p as { text?: unknown }).text === 'string'
        ? (p as { text: string }).text
        : '',
    )
    .filter(Boolean)
    .join('\n');
}

function parseArguments(raw: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
    return { value: parsed };
  } catch {
    return { raw };
  }
}

function looksLikeError(output: string): boolean {
  try {
    const parsed = JSON.parse(output) as Record<string, unknown>;
    return (
      typeof parsed === 'object' &&
      parsed !== null &&
      (parsed.success === false || typeof parsed.error === 'string')
    );
  } catch {
    return false;
  }
}
