/**
 * Time in messages and records (decision 0905): a message that asks when something happens or
 * happened ("When is the dentist appointment?", "What day did we ship 2.0?") is answered by a record
 * that says when — a date, a weekday, a month, "last week", "two days ago" — more than by one that
 * only names the same thing. English patterns, like the query analysis.
 */

/** "when", "what time / date / day / year …", "which day …", "how long ago", "since when". */
const ASKS_WHEN =
  /\b(?:when|(?:what|which)\s+(?:time|date|day|days|week|weekend|month|year)|how\s+long\s+ago|since\s+when)\b/i;

const UNITS = '(?:minute|hour|day|night|week|weekend|month|year|decade)s?';
const WEEKDAYS = '(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?';
// "May" is left out: as a word it is mostly the verb.
const MONTHS = '(?:january|february|march|april|june|july|august|september|october|november|december)';
const SEASONS = '(?:spring|summer|autumn|fall|winter)';

/** What anchors a statement in time, relative or absolute. */
const TIME_EXPRESSION = new RegExp(
  [
    '\\b(?:yesterday|today|tonight|tomorrow|recently|lately|ago|soon)\\b',
    `\\b(?:last|next|this|past|coming|every|each)\\s+(?:${UNITS}|${WEEKDAYS}|${SEASONS}|${MONTHS})\\b`,
    `\\b${WEEKDAYS}\\b`,
    `\\b${MONTHS}\\b`,
    '\\b(?:19|20)\\d{2}\\b',
    '\\b\\d{1,4}[/.-]\\d{1,2}(?:[/.-]\\d{1,4})?\\b',
    `\\b(?:\\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|few|several|couple\\s+of)\\s+${UNITS}\\b`,
  ].join('|'),
  'i',
);

/** Whether a message asks about time. */
export function asksWhen(text: string): boolean {
  return ASKS_WHEN.test(text);
}

/** Whether a text says when: a date, weekday, month, year or relative time ("last week", "2 days ago"). */
export function saysWhen(text: string): boolean {
  return TIME_EXPRESSION.test(text);
}
