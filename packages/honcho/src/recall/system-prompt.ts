/** The static system-prompt block per recall mode: it explains the tools, never carries live data (prompt cache). */
import type { RecallMode } from '../config/types';

export const SYSTEM_PROMPTS: Readonly<Record<RecallMode, string>> = {
  hybrid:
    '# Honcho memory\nHoncho models the user across sessions. Relevant context is injected automatically each turn. Use honcho_profile for the curated fact card, honcho_search for raw excerpts of past conversations, honcho_reasoning to ask Honcho a question about the user, honcho_context for this session, and honcho_conclude to save a durable fact about the user.',
  context:
    '# Honcho memory\nHoncho models the user across sessions. What it knows that is relevant is injected automatically each turn as memory context.',
  tools:
    '# Honcho memory\nHoncho models the user across sessions. Nothing is injected automatically: call honcho_profile for the curated fact card, honcho_search for raw excerpts, honcho_reasoning to ask about the user, honcho_context for this session, and honcho_conclude to save a durable fact.',
};
