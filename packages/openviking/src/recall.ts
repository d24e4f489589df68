import { type Clock, neutralizeMemoryText, withDeadline } from '@hermes-memory/core';
import type { OpenvikingClient, VikingHit, VikingSearchResult } from './client';
import type { RecallSettings } from './openviking-settings';
import { isNotFound } from './sessions/session-sync';

export const RECALL_HEADER = '## OpenViking Context';
const MIN_QUERY_CHARS = 5;
const LEAF_BOOST = 0.12;
const TOKEN_BOOST = 0.05;
const MAX_TOKEN_BOOST = 0.2;
const LISTING_ABSTRACT_CHARS = 200;

export interface RecallResult {
  text: string;
  /** Memories in the block (0 when only the profile block was produced). */
  count: number;
  /** The session-start block was produced (or the user has none): do not build it again. */
  sessionStartDone: boolean;
}

export interface RecallInput {
  client: OpenvikingClient;
  userId: string;
  query: string;
  /** Live session for session-aware search ('' = stateless find). */
  sessionId: string;
  withSessionStart: boolean;
  settings: RecallSettings;
  clock: Clock;
  signal?: AbortSignal;
}

/**
 * What the model sees before a turn: once per session the user's profile and the memory
 * directories' listing, then memories that match this query — all within the recall budget
 * (4 s), each request within its own (3 s). Any failure gives "" (and the session-start block is
 * then tried again on a later turn).
 */
export async function buildRecall(input: RecallInput): Promise<RecallResult> {
  const { settings } = input;
  const parts: string[] = [];
  let sessionStartDone = !input.withSessionStart;
  let count = 0;
  await withDeadline(
    async (signal) => {
      const call = { signal, timeoutMs: settings.requestTimeoutMs };
      if (input.withSessionStart) {
        try {
          const block = await sessionStartBlock(
            input.client,
            input.userId,
            settings.profileTokenBudget,
            call,
          );
          if (block) parts.push(block);
          sessionStartDone = true;
        } catch {}
      }
      if (input.query.trim().length >= MIN_QUERY_CHARS) {
        const found = await queryRecall(input, call);
        if (found.text) parts.push(found.text);
        count = found.count;
      }
    },
    {
      timeoutMs: settings.timeoutMs,
      clock: input.clock,
      label: 'OpenViking recall',
      ...(input.signal ? { signal: input.signal } : {}),
    },
  ).catch(() => {});
  if (parts.length === 0) return { text: '', count: 0, sessionStartDone };
  return { text: `${RECALL_HEADER}\n${parts.join('\n\n')}`, count, sessionStartDone };
}

// --- the session-start block -------------------------------------------------------------

/** Budget units: 4 per token; characters from U+3000 up (CJK) weigh 6. */
export function units(text: string): number {
  let n = 0;
  for (const ch of text) n += ch.codePointAt(0)! >= 0x3000 ? 6 : 1;
  return n;
}

async function sessionStartBlock(
  client: OpenvikingClient,
  userId: string,
  tokenBudget: number,
  call: { signal: AbortSignal; timeoutMs: number },
): Promise<string> {
  const base = `viking://user/${userId}/memories`;
  const profileUri = `${base}/profile.md`;
  let profile = '';
  try {
    profile = await client.content('read', profileUri, call);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  const budget = tokenBudget * 4;
  const out: string[] = [];
  let used = 0;
  if (profile.trim() !== '') {
    const text = fitProfile(neutralizeMemoryText(profile.trim()), Math.floor(budget / 2));
    out.push(`<user-profile uri="${profileUri}">\n${text}\n</user-profile>`);
    used = units(text);
  }
  const listing: string[] = [];
  for (const dir of ['preferences', 'entities']) {
    let entries: Awaited<ReturnType<OpenvikingClient['ls']>> = [];
    try {
      entries = await client.ls(`${base}/${dir}`, {}, call);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    const files = entries.filter((e) => !e.is_dir && !String(e.name ?? e.uri).startsWith('.'));
    if (files.length === 0) continue;
    const lines = [`  ${dir}/`];
    used += units(lines[0]!);
    let shown = 0;
    for (const entry of files) {
      const name = entry.name ?? entry.uri.slice(entry.uri.lastIndexOf('/') + 1);
      const abstract = neutralizeMemoryText(
        (entry.abstract ?? '').replace(/\s+/g, ' ').trim().slice(0, LISTING_ABSTRACT_CHARS),
      );
      const line = `    - ${neutralizeMemoryText(name)}${abstract ? ` — ${abstract}` : ''}`;
      if (used + units(line) > budget) break;
      lines.push(line);
      used += units(line);
      shown++;
    }
    if (shown < files.length)
      lines.push(
        shown === 0
          ? `    (${files.length} entries; use \`viking_search\`)`
          : `    … +${files.length - shown} more, use \`viking_search\``,
      );
    listing.push(...lines);
  }
  if (listing.length > 0) out.push(`<available-memories>\n${listing.join('\n')}\n</available-memories>`);
  return out.join('\n');
}

/** A profile within `budget` units: whole, else the first 8 lines and the tail, else the head. */
export function fitProfile(profile: string, budget: number): string {
  if (units(profile) <= budget) return profile;
  const lines = profile.split('\n');
  if (lines.length <= 12) return `${cutToUnits(profile, budget - 30)}\n… [profile truncated]`;
  const head = lines.slice(0, 8).join('\n');
  const marker = '\n… [profile middle elided] …\n';
  const room = budget - units(head) - units(marker);
  if (room <= 0) return `${cutToUnits(head, budget - 30)}\n… [profile truncated]`;
  const tailLines: string[] = [];
  let size = 0;
  for (let i = lines.length - 1; i >= 8; i--) {
    const cost = units(lines[i]!) + 1;
    if (size + cost > room) break;
    tailLines.unshift(lines[i]!);
    size += cost;
  }
  return `${head}${marker}${tailLines.join('\n')}`;
}

function cutToUnits(text: string, budget: number): string {
  let used = 0;
  let out = '';
  for (const ch of text) {
    const cost = ch.codePointAt(0)! >= 0x3000 ? 6 : 1;
    if (used + cost > budget) break;
    out += ch;
    used += cost;
  }
  return out;
}

// --- query recall ------------------------------------------------------------------------

interface Ranked {
  hit: VikingHit;
  rank: number;
}

/** Filter, dedupe and rank candidates (see the checklist: threshold, dedupe, +0.12 leaves, ≤+0.2 tokens). */
export function rankHits(
  hits: readonly VikingHit[],
  query: string,
  settings: Pick<RecallSettings, 'scoreThreshold' | 'limit'>,
): Ranked[] {
  const tokens = [
    ...new Set((query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((t) => t.length >= 2)),
  ].slice(0, 8);
  const seenUri = new Set<string>();
  const seenAbstract = new Set<string>();
  const ranked: Ranked[] = [];
  for (const hit of hits) {
    const score = Math.min(
      1,
      Math.max(0, typeof hit.score === 'number' && Number.isFinite(hit.score) ? hit.score : 0),
    );
    if (score < settings.scoreThreshold) continue;
    if (seenUri.has(hit.uri)) continue;
    seenUri.add(hit.uri);
    const abstract = (hit.abstract ?? '').trim().toLowerCase();
    if (abstract !== '' && !/\/(events|cases)\//.test(hit.uri)) {
      const key = `${hit.category ?? ''}\u0000${abstract}`;
      if (seenAbstract.has(key)) continue;
      seenAbstract.add(key);
    }
    const haystack = `${abstract} ${hit.uri.toLowerCase()}`;
    const matched = tokens.filter((t) => haystack.includes(t)).length;
    const rank =
      score + (hit.level === 2 ? LEAF_BOOST : 0) + Math.min(MAX_TOKEN_BOOST, TOKEN_BOOST * matched);
    ranked.push({ hit, rank });
  }
  return ranked.sort((a, b) => b.rank - a.rank).slice(0, settings.limit);
}

async function queryRecall(
  input: RecallInput,
  call: { signal: AbortSignal; timeoutMs: number },
): Promise<{ text: string; count: number }> {
  const { client, settings, query } = input;
  const request = {
    query,
    limit: Math.max(4 * settings.limit, 20),
    score_threshold: 0,
    context_type: settings.resources ? ['memory', 'resource'] : 'memory',
  };
  let found: VikingSearchResult;
  try {
    found = await client.search(
      input.sessionId ? { ...request, session_id: input.sessionId } : request,
      call,
    );
  } catch (error) {
    if (!input.sessionId || call.signal.aborted) throw error;
    found = await client.search(request, call);
  }
  const candidates = [...found.memories, ...(settings.resources ? found.resources : [])];
  const ranked = rankHits(candidates, query, settings);
  const entries: string[] = [];
  let size = 0;
  let reads = 0;
  for (const { hit } of ranked) {
    let content = (hit.abstract ?? '').trim();
    const wantsFull = hit.level === 2 || content === '';
    if (wantsFull && reads < settings.fullReadLimit && !(settings.preferAbstract && content !== '')) {
      reads++;
      try {
        content = (await client.content('read', hit.uri, call)).trim() || content;
      } catch {}
    }
    if (content === '') continue;
    const body = neutralizeMemoryText(content)
      .split('\n')
      .map((line) => `  ${line}`)
      .join('\n');
    const entry = `- [${neutralizeMemoryText(hit.category ?? 'memory')}]\n  <uri>${neutralizeMemoryText(hit.uri)}</uri>\n${body}`;
    if (size + entry.length + 1 > settings.maxInjectedChars) {
      const room = settings.maxInjectedChars - size - 1;
      if (room > 80) entries.push(`${entry.slice(0, room - 1)}…`);
      break;
    }
    entries.push(entry);
    size += entry.length + 1;
  }
  return { text: entries.join('\n'), count: entries.length };
}
