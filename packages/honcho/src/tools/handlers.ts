/**
 * What the five tools do. Each answers JSON (`{result: …}` or `{error: …}`), with the reference's
 * caps and texts, and routes observer/target as Honcho's observation flags say.
 */
import {
  InvalidArgumentError,
  optionalString,
  parseToolArgs,
  requiredString,
  type ToolArgs,
  toolResult,
} from '@hermes-memory/core';
import type { FoundMessage, HonchoBackend } from '../client/backend';
import type { ObservationFlags, ReasoningLevel } from '../config/types';
import { REASONING_LEVELS } from '../config/types';
import { guardWrite } from '../guard';
import { BOT_TURN_WRITE_REFUSAL } from '../identity/a2a';
import { CONCLUDE_TOOL, CONTEXT_TOOL, PROFILE_TOOL, REASONING_TOOL, SEARCH_TOOL } from './schemas';

export const SEARCH_MAX_QUERY_CHARS = 4_000;
export const SEARCH_DEFAULT_TOKENS = 800;
export const SEARCH_MAX_TOKENS = 2_000;
const EXCERPT_MAX_CHARS = 1_200;
/** Honcho's ids (nanoid-style): the only thing `delete_id` may be. */
const CONCLUSION_ID = /^[A-Za-z0-9_-]{1,128}$/;
/** How many of the target's conclusions a new one is judged with (a payload split across several). */
const SCAN_CONTEXT_CONCLUSIONS = 8;

export interface ToolScope {
  backend: HonchoBackend;
  sessionId: string;
  userPeerId: string;
  aiPeerId: string;
  observation: ObservationFlags;
  dialecticDynamic: boolean;
  /** Turns so far in this session (for the empty-card hint). */
  turn: number;
  /** May this agent write (primary context)? */
  writable: boolean;
  /** The current turn was written by another bot: conclusions and card edits are refused. */
  botTurn: boolean;
  signal: AbortSignal | undefined;
  /** An explicit dialectic ran: automatic injection waits for its cadence. */
  onReasoning: () => void;
}

/** `user` / `ai` / a peer id → the peer id. */
function targetOf(scope: ToolScope, peer: string | undefined): string {
  const wanted = (peer ?? 'user').trim() || 'user';
  if (wanted === 'user') return scope.userPeerId;
  if (wanted === 'ai' || wanted === 'assistant') return scope.aiPeerId;
  if (!/^[a-zA-Z0-9_-]+$/.test(wanted)) throw new InvalidArgumentError('peer', `Invalid peer '${wanted}'.`);
  return wanted;
}

/** Who observes whom: the AI peer about itself; the AI about others when it observes them; else self-observation. */
export function routeObserver(scope: Pick<ToolScope, 'aiPeerId' | 'observation'>, target: string): string {
  if (target === scope.aiPeerId) return scope.aiPeerId;
  return scope.observation.aiObserveOthers ? scope.aiPeerId : target;
}

/** Character budget and result count for honcho_search. */
export function searchBudget(maxTokens: number): { chars: number; limit: number } {
  const tokens = Math.min(SEARCH_MAX_TOKENS, Math.max(1, maxTokens));
  const chars = Math.max(200, tokens * 4);
  return { chars, limit: Math.min(20, Math.max(3, Math.floor(chars / 300))) };
}

function formatExcerpts(scope: ToolScope, messages: readonly FoundMessage[], budget: number): string {
  const lines: string[] = [];
  let left = budget;
  for (const m of messages) {
    if (left <= 0) break;
    const author = m.peerId === scope.aiPeerId ? 'assistant' : m.peerId;
    let line = `[${author} · ${m.sessionId}] ${m.content.slice(0, EXCERPT_MAX_CHARS)}`;
    if (line.length > left) line = line.slice(0, left);
    lines.push(line);
    left -= line.length + 1;
  }
  return lines.join('\n');
}

function tokensArg(args: ToolArgs): number {
  const raw = args.max_tokens;
  if (raw === undefined || raw === null || raw === '') return SEARCH_DEFAULT_TOKENS;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' ? Number(raw) : Number.NaN;
  if (!Number.isFinite(n)) throw new InvalidArgumentError('max_tokens', "'max_tokens' must be an integer.");
  return Math.trunc(n);
}

function boolArg(args: ToolArgs, key: string): boolean {
  const raw = args[key];
  if (raw === true || raw === 'true') return true;
  if (raw === undefined || raw === null || raw === false || raw === 'false' || raw === '') return false;
  throw new InvalidArgumentError(key, `'${key}' must be true or false.`);
}

async function profile(scope: ToolScope, args: ToolArgs): Promise<string> {
  const target = targetOf(scope, optionalString(args, 'peer'));
  const observer = routeObserver(scope, target);
  if (args.card !== undefined && args.card !== null) {
    if (!Array.isArray(args.card) || args.card.some((f) => typeof f !== 'string')) {
      throw new InvalidArgumentError('card', "'card' must be a list of strings.");
    }
    if (!scope.writable) return toolResult({ error: 'Honcho profile writes are disabled in this context.' });
    if (scope.botTurn) return toolResult({ error: BOT_TURN_WRITE_REFUSAL });
    // The card is injected into every prompt: each fact passes the write scanner, judged with the rest.
    const facts: string[] = [];
    for (const fact of (args.card as string[]).map((f) => f.trim()).filter(Boolean)) {
      const guarded = guardWrite(fact, facts);
      if (!guarded.ok) return toolResult({ error: `Peer card not updated: ${guarded.error}` });
      facts.push(guarded.text);
    }
    const card = await scope.backend.setCard(observer, target, facts, scope.signal);
    return toolResult({ result: `Peer card updated (${card.length} facts).`, card });
  }
  const card = await scope.backend.getCard(observer, target, scope.signal);
  if (card.length > 0) return toolResult({ result: card });
  const observed =
    target === scope.aiPeerId ? scope.observation.aiObserveMe : scope.observation.userObserveMe;
  const reasons = [
    ...(observed ? [] : ['observation is disabled for this peer (observeMe is off)']),
    `this session has only ${scope.turn} turn(s) so far, and cards build up over the dialectic cadence`,
    'self-hosted Honcho before 3.x has no peer cards',
  ];
  return toolResult({
    result: 'No profile facts available yet.',
    hint: `Likely reasons: ${reasons.join('; ')}. Try honcho_reasoning for a synthesis or honcho_search for raw excerpts.`,
  });
}

async function search(scope: ToolScope, args: ToolArgs): Promise<string> {
  const query = requiredString(args, 'query').trim().slice(0, SEARCH_MAX_QUERY_CHARS);
  const { chars, limit } = searchBudget(tokensArg(args));
  const target = targetOf(scope, optionalString(args, 'peer'));
  const perspective = routeObserver(scope, target);
  let messages: FoundMessage[];
  try {
    messages = await scope.backend.search(query, perspective, limit, scope.signal);
  } catch (error) {
    if (scope.signal?.aborted) throw error;
    messages = await scope.backend.peerSearch(target, query, limit, scope.signal);
  }
  const text = formatExcerpts(scope, messages, chars);
  return toolResult({ result: text || 'No relevant context found.' });
}

async function reasoning(scope: ToolScope, args: ToolArgs): Promise<string> {
  const query = requiredString(args, 'query');
  const levelRaw = optionalString(args, 'reasoning_level');
  if (levelRaw !== undefined && !(REASONING_LEVELS as readonly string[]).includes(levelRaw)) {
    throw new InvalidArgumentError(
      'reasoning_level',
      `Invalid reasoning_level '${levelRaw}'. Use one of: ${REASONING_LEVELS.join(', ')}.`,
    );
  }
  const level = scope.dialecticDynamic ? (levelRaw as ReasoningLevel | undefined) : undefined;
  const target = targetOf(scope, optionalString(args, 'peer'));
  scope.onReasoning();
  const answer = await scope.backend.chat(routeObserver(scope, target), target, query, level, scope.signal);
  return toolResult({ result: answer.trim() || 'No result from Honcho.' });
}

async function context(scope: ToolScope, args: ToolArgs): Promise<string> {
  const target = targetOf(scope, optionalString(args, 'peer'));
  const observer = routeObserver(scope, target);
  const [session, view] = await Promise.all([
    scope.backend.sessionContext(scope.sessionId, scope.signal),
    scope.backend.peerView(observer, target, undefined, scope.signal),
  ]);
  const sections: string[] = [];
  if (session.summary.trim()) sections.push(`## Summary\n${session.summary.trim()}`);
  if (view.representation.trim()) sections.push(`## Representation\n${view.representation.trim()}`);
  if (view.card.length > 0) sections.push(`## Card\n${view.card.map((f) => `- ${f}`).join('\n')}`);
  const recent = session.messages.slice(-10).slice(-5);
  if (recent.length > 0) {
    const lines = recent.map(
      (m) => `- ${m.peerId === scope.aiPeerId ? 'assistant' : m.peerId}: ${m.content.slice(0, 200)}`,
    );
    sections.push(`## Recent messages\n${lines.join('\n')}`);
  }
  return toolResult({ result: sections.join('\n\n') || 'No context available yet.' });
}

async function conclude(scope: ToolScope, args: ToolArgs): Promise<string> {
  const conclusion = optionalString(args, 'conclusion')?.trim() || undefined;
  const deleteId = optionalString(args, 'delete_id')?.trim() || undefined;
  const list = boolArg(args, 'list');
  const query = optionalString(args, 'query')?.trim() || undefined;
  if ([conclusion, deleteId, list || undefined].filter((v) => v !== undefined).length !== 1) {
    return toolResult({ error: 'Exactly one of conclusion, delete_id, or list must be provided.' });
  }
  if (query !== undefined && !list) return toolResult({ error: 'query is only valid when list is true.' });
  const target = targetOf(scope, optionalString(args, 'peer'));
  const observer = routeObserver(scope, target);
  const name = target === scope.userPeerId ? 'user' : target === scope.aiPeerId ? 'ai' : target;
  if (list) {
    const items = await scope.backend.listConclusions(observer, target, query, 20, scope.signal);
    return toolResult({ conclusions: items });
  }
  if (!scope.writable) return toolResult({ error: 'Honcho conclusions cannot be changed in this context.' });
  if (scope.botTurn) return toolResult({ error: BOT_TURN_WRITE_REFUSAL });
  if (deleteId) {
    // The SDK puts the id in the URL path unencoded: anything but an id could reach another route.
    if (!CONCLUSION_ID.test(deleteId))
      return toolResult({ error: `Invalid delete_id '${deleteId.slice(0, 80)}'.` });
    try {
      await scope.backend.deleteConclusion(observer, target, deleteId, scope.signal);
    } catch (error) {
      return toolResult({ error: `Failed to delete conclusion ${deleteId}: ${(error as Error).message}` });
    }
    return toolResult({ result: `Conclusion ${deleteId} deleted.` });
  }
  // Conclusions come back as representation and dialectic answers: refuse what the write scanner
  // blocks, alone (before any request) or together with the target's latest conclusions.
  const alone = guardWrite(conclusion!);
  if (!alone.ok) return toolResult({ error: `Conclusion not saved: ${alone.error}` });
  const recent = await scope.backend
    .listConclusions(observer, target, undefined, SCAN_CONTEXT_CONCLUSIONS, scope.signal)
    .catch(() => []);
  const guarded = guardWrite(
    conclusion!,
    recent.map((c) => c.content),
  );
  if (!guarded.ok) return toolResult({ error: `Conclusion not saved: ${guarded.error}` });
  try {
    const saved = await scope.backend.createConclusion(
      observer,
      target,
      guarded.text,
      scope.sessionId,
      scope.signal,
    );
    return toolResult({ result: `Conclusion saved for ${name}: ${saved.content}`, id: saved.id });
  } catch (error) {
    return toolResult({ error: `Failed to save conclusion: ${(error as Error).message}` });
  }
}

const HANDLERS: Record<string, (scope: ToolScope, args: ToolArgs) => Promise<string>> = {
  [PROFILE_TOOL]: profile,
  [SEARCH_TOOL]: search,
  [REASONING_TOOL]: reasoning,
  [CONTEXT_TOOL]: context,
  [CONCLUDE_TOOL]: conclude,
};

export function isHonchoTool(name: string): boolean {
  return name in HANDLERS;
}

/** Run a tool; errors become `{"error": "Honcho <tool> failed: …"}` (never a throw). */
export async function runHonchoTool(name: string, rawArgs: unknown, scope: ToolScope): Promise<string> {
  const handler = HANDLERS[name];
  if (!handler) return toolResult({ error: `Unknown tool: ${name}` });
  try {
    return await handler(scope, parseToolArgs(rawArgs));
  } catch (error) {
    if (error instanceof InvalidArgumentError) return toolResult({ error: error.message });
    return toolResult({
      error: `Honcho ${name} failed: ${error instanceof Error ? error.message : String(error)}`,
    });
  }
}

/**
 * What a tool answers without the network, when the breaker is open: its argument error (the same
 * text the handler gives), or null when the call is well-formed and needs Honcho. The handler runs
 * against a backend that refuses every call, and any call at all means "needs Honcho".
 */
export async function answerWithoutNetwork(
  name: string,
  rawArgs: unknown,
  scope: Omit<ToolScope, 'backend' | 'onReasoning'>,
): Promise<string | null> {
  let reached = false;
  const offline = new Proxy({} as HonchoBackend, {
    get: () => () => {
      reached = true;
      return Promise.reject(new Error('offline'));
    },
  });
  const result = await runHonchoTool(name, rawArgs, {
    ...scope,
    backend: offline,
    onReasoning: () => undefined,
  });
  return reached ? null : result;
}
