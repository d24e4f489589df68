/**
 * Masks things that look like credentials so they never reach logs or third-party backends:
 * bearer tokens, well-known key prefixes, `key=value` assignments of secret-named variables and
 * URL userinfo. `data:` URLs pass through untouched (they are content, not secrets).
 */
const PATTERNS: RegExp[] = [
  /\b(sk|pk|rk)-[A-Za-z0-9_-]{16,}\b/g,
  /\b(sk-ant|sk-proj|sk-or)-[A-Za-z0-9_-]{10,}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}\b/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}\b/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{30,}\b/g,
  /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b/g,
];

const BEARER = /\b(Bearer|Token|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi;
const ASSIGNMENT =
  /\b([A-Za-z0-9_]*(?:API_?KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)[A-Za-z0-9_]*)\s*([=:])\s*("?)([^\s"']{6,})\3/gi;
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^/\s:@]+):([^/\s@]+)@/gi;

export const REDACTED = '[redacted]';

export function redactSecrets(text: string): string {
  if (!text) return text;
  let out = text.replace(BEARER, (_m, scheme: string) => `${scheme} ${REDACTED}`);
  out = out.replace(
    ASSIGNMENT,
    (_m, name: string, sep: string, quote: string) => `${name}${sep}${quote}${REDACTED}${quote}`,
  );
  out = out.replace(URL_USERINFO, (_m, scheme: string, user: string) => `${scheme}${user}:${REDACTED}@`);
  for (const pattern of PATTERNS) out = out.replace(pattern, REDACTED);
  return out;
}
