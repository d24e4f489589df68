/**
 * When a user runs `/some-skill do X`, the agent expands the turn into a long scaffold holding the
 * whole skill body. Memory must see only what the user said ("do X"), and nothing for a bare
 * `/some-skill`. The markers are the reference agent's, byte for byte.
 */
const INVOCATION_PREFIX = '[IMPORTANT: The user has invoked the ';
const SINGLE_SKILL_MARKER = 'The full skill content is loaded below.]';
const SINGLE_SKILL_INSTRUCTION =
  'The user has provided the following instruction alongside the skill invocation: ';
const RUNTIME_NOTE = '\n\n[Runtime note:';
const BUNDLE_MARKER = ' skill bundle,';
const BUNDLE_USER_INSTRUCTION = '\nUser instruction: ';
const BUNDLE_FIRST_SKILL_BLOCK = '\n\n[Loaded as part of the ';

function cutAfter(text: string, marker: string, end: string, fromLast: boolean): string | null {
  const at = fromLast ? text.lastIndexOf(marker) : text.indexOf(marker);
  if (at < 0) return null;
  let rest = text.slice(at + marker.length);
  const stop = rest.indexOf(end);
  if (stop >= 0) rest = rest.slice(0, stop);
  const instruction = rest.trim();
  return instruction === '' ? null : instruction;
}

/**
 * The user's own words from a turn: unchanged for an ordinary message, the instruction for a
 * skill or bundle invocation, `null` for a bare invocation (nothing worth recalling or storing).
 */
export function extractUserInstruction(content: unknown): string | null {
  if (typeof content !== 'string') return null;
  if (!content.startsWith(INVOCATION_PREFIX)) return content;
  // Bundles put the instruction before the loaded skills (first marker); single skills after the
  // body, which may itself quote the marker (last marker).
  if (content.includes(BUNDLE_MARKER))
    return cutAfter(content, BUNDLE_USER_INSTRUCTION, BUNDLE_FIRST_SKILL_BLOCK, false);
  if (content.includes(SINGLE_SKILL_MARKER))
    return cutAfter(content, SINGLE_SKILL_INSTRUCTION, RUNTIME_NOTE, true);
  return null;
}

/** Builds a single-skill scaffold the way the agent does (for hosts and tests). */
export function buildSkillInvocationMessage(skillName: string, body: string, instruction?: string): string {
  const parts = [`${INVOCATION_PREFIX}"${skillName}" skill. ${SINGLE_SKILL_MARKER}`, '', body];
  if (instruction) parts.push(`${SINGLE_SKILL_INSTRUCTION}${instruction}`);
  return parts.join('\n');
}
