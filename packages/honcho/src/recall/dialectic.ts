/**
 * The dialectic supplement: up to three `peer.chat` passes (depth 1–3), each skipped when the one
 * before already said enough, with a reasoning level per pass. Prompts and thresholds are the
 * reference's, so both agents ask Honcho the same questions.
 */
import { REASONING_LEVELS, type ReasoningLevel } from '../config/types';

/** Asked at session start (turn 0) so turn 1 can serve a ready answer. */
export const PREWARM_QUERY =
  'Summarize what you know about this user. Focus on preferences, current projects, and working style.';

const COLD_PROMPT =
  'Who is this person? What are their preferences, goals, and working style? Focus on facts that would help an AI assistant be immediately useful.';
const WARM_PROMPT =
  "Given what's been discussed in this session so far, what context about this user is most relevant to the current conversation? Prioritize active context over biographical facts.";

/** Query length (characters) from which the heuristic raises the level one step, and two. */
const HEURISTIC_MEDIUM = 120;
const HEURISTIC_HIGH = 400;

/** Pass levels when `dialecticDepthLevels` is not set: lighter early passes, `base` = the configured level. */
const PROPORTIONAL: Record<number, readonly (ReasoningLevel | 'base')[]> = {
  1: ['base'],
  2: ['minimal', 'base'],
  3: ['minimal', 'base', 'low'],
};

export interface DialecticSettings {
  depth: 1 | 2 | 3;
  depthLevels: readonly ReasoningLevel[] | undefined;
  reasoningLevel: ReasoningLevel;
  reasoningHeuristic: boolean;
  reasoningLevelCap: ReasoningLevel;
}

/** The configured level raised by query length (+1 at 120 characters, +2 at 400), capped. */
export function applyReasoningHeuristic(
  settings: DialecticSettings,
  base: ReasoningLevel,
  query: string,
): ReasoningLevel {
  if (!settings.reasoningHeuristic || !query) return base;
  const bump = query.length < HEURISTIC_MEDIUM ? 0 : query.length < HEURISTIC_HIGH ? 1 : 2;
  const index = REASONING_LEVELS.indexOf(base);
  const cap = REASONING_LEVELS.indexOf(settings.reasoningLevelCap);
  return REASONING_LEVELS[Math.min(index + bump, cap)]!;
}

/** The level of pass `pass`: an explicit per-pass level, else the proportional table, else the heuristic. */
export function passLevel(settings: DialecticSettings, pass: number, query: string): ReasoningLevel {
  const explicit = settings.depthLevels?.[pass];
  if (explicit) return explicit;
  const mapped = PROPORTIONAL[settings.depth]?.[pass];
  if (mapped === undefined || mapped === 'base') {
    return applyReasoningHeuristic(settings, settings.reasoningLevel, query);
  }
  return mapped;
}

/** The prompt of pass `pass` given the earlier non-empty answers. */
export function passPrompt(pass: number, prior: readonly string[], cold: boolean): string {
  if (pass === 0) return cold ? COLD_PROMPT : WARM_PROMPT;
  if (pass === 1) {
    return `Given this initial assessment:\n\n${prior.at(-1) ?? ''}\n\nWhat gaps remain in your understanding that would help going forward? Synthesize what you actually know about the user's current state and immediate needs, grounded in evidence from recent sessions.`;
  }
  return `Prior passes produced:\n\nPass 1:\n${prior[0] ?? '(empty)'}\n\nPass 2:\n${prior[1] ?? '(empty)'}\n\nDo these assessments cohere? Reconcile any contradictions and produce a final, concise synthesis of what matters most for the current conversation.`;
}

/**
 * Whether an answer is enough to skip the next pass: over 100 characters and structured (a
 * newline plus "##", "•", a "- " / "* " line or a numbered line), or over 300 characters.
 */
export function signalSufficient(result: string): boolean {
  const text = result.trim();
  if (text.length < 100) return false;
  if (
    result.includes('\n') &&
    (result.includes('##') || result.includes('•') || /^[*-] /m.test(result) || /^\s*\d+\. /m.test(result))
  ) {
    return true;
  }
  return text.length > 300;
}

export interface DialecticRun {
  /** The answer to inject: the last non-empty pass. */
  result: string;
  /** Passes actually sent. */
  passes: number;
}

/**
 * Run the passes. `ask(prompt, level)` is one `peer.chat`. Pass 0 asks the cold prompt when no
 * base context is cached, the warm one otherwise (or `rewritten`, a query rewritten from the
 * user's message); a later pass with no non-empty answer before it asks the base prompt again.
 * `lead` (the current request, under `recallSync`) starts every pass's prompt.
 */
export async function runDialecticDepth(
  settings: DialecticSettings,
  options: { query: string; cold: boolean; rewritten?: string; signal?: AbortSignal; lead?: string },
  ask: (prompt: string, level: ReasoningLevel) => Promise<string>,
): Promise<DialecticRun> {
  const results: string[] = [];
  let passes = 0;
  for (let pass = 0; pass < settings.depth; pass++) {
    options.signal?.throwIfAborted();
    const prior = results.filter((r) => r.trim() !== '');
    let prompt: string;
    if (pass > 0 && prior.length > 0) {
      if (signalSufficient(prior.at(-1)!)) break;
      prompt = passPrompt(pass, prior, options.cold);
    } else {
      prompt = options.rewritten || passPrompt(0, prior, options.cold);
    }
    const asked = options.lead ? `${options.lead}\n\n${prompt}` : prompt;
    results.push((await ask(asked, passLevel(settings, pass, options.query))) ?? '');
    passes += 1;
  }
  return { result: [...results].reverse().find((r) => r.trim() !== '') ?? '', passes };
}
