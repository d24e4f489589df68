/**
 * Layer 1 of the injection: the session summary and what Honcho holds about both peers, as "##"
 * sections in a fixed order (empty ones left out) so the text is stable turn to turn.
 */
import type { BaseSection } from '../config/types';

export interface BaseContextParts {
  summary?: string;
  userRepresentation?: string;
  userCard?: readonly string[];
  aiRepresentation?: string;
  aiCard?: readonly string[];
}

const HEADINGS: Record<BaseSection, string> = {
  summary: 'Session Summary',
  peerRepresentation: 'User Representation',
  peerCard: 'User Peer Card',
  aiRepresentation: 'AI Self-Representation',
  aiCard: 'AI Identity Card',
};

function cardText(card: readonly string[] | undefined): string {
  return (card ?? [])
    .map((fact) => fact.trim())
    .filter(Boolean)
    .map((fact) => `- ${fact}`)
    .join('\n');
}

/**
 * Model reasoning that leaked into a summary is cleaned: text before a closing `</think>` and
 * whole `<think>…</think>` blocks are dropped.
 */
export function cleanSummary(summary: string): string {
  let text = summary;
  const close = text.lastIndexOf('</think>');
  if (close >= 0 && text.indexOf('<think>') < 0) text = text.slice(close + '</think>'.length);
  return text.replace(/<think>[\s\S]*?<\/think>/g, '').trim();
}

/** The sections in order; `sections` limits which ones appear (`injection.sessionStart`). */
export function formatBaseContext(parts: BaseContextParts, sections: readonly BaseSection[]): string {
  const bodies: Record<BaseSection, string> = {
    summary: cleanSummary(parts.summary ?? ''),
    peerRepresentation: (parts.userRepresentation ?? '').trim(),
    peerCard: cardText(parts.userCard),
    aiRepresentation: (parts.aiRepresentation ?? '').trim(),
    aiCard: cardText(parts.aiCard),
  };
  return (Object.keys(HEADINGS) as BaseSection[])
    .filter((section) => sections.includes(section) && bodies[section] !== '')
    .map((section) => `## ${HEADINGS[section]}\n${bodies[section]}`)
    .join('\n\n');
}
