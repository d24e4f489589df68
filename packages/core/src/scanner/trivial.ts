/**
 * Bare acknowledgements and greetings: recall for them would only add noise, so prefetch is
 * skipped. Matching is on the whole message, so words that merely start with one of these
 * ("k8s", "note", "yolo") are not trivial.
 */
const TRIVIAL_WORDS = [
  'yes',
  'no',
  'ok',
  'okay',
  'sure',
  'thanks',
  'thank you',
  'y',
  'n',
  'yep',
  'nope',
  'yeah',
  'nah',
  'hi',
  'hey',
  'hello',
  'yo',
  'sup',
  'continue',
  'go ahead',
  'do it',
  'proceed',
  'got it',
  'cool',
  'nice',
  'great',
  'done',
  'next',
  'lgtm',
  'k',
];

const TRIVIAL = new RegExp(
  `^["'\`(\\[{<«“‘]*(?:${TRIVIAL_WORDS.map((w) => w.replace(/ /g, '\\s+')).join('|')})[\\s\\p{P}\\p{S}"'\`()\\[\\]{}<>]*$`,
  'iu',
);

/** "/help", "/model gpt-4" — but not a path such as "/etc/hosts is broken". */
const SLASH_COMMAND = /^\/[A-Za-z][\w-]*(?:\s|$)/;

/** True for empty text, slash commands and bare acknowledgements ("ok", "thanks!", "lgtm"). */
export function isTrivialPrompt(text: string | null | undefined): boolean {
  const t = (text ?? '').trim();
  if (t === '') return true;
  if (SLASH_COMMAND.test(t)) return true;
  return TRIVIAL.test(t);
}
