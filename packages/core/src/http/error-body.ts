import { REDACTED, redactSecrets } from '../logging/redact';

/**
 * What a server said went wrong, from the error body shapes our backends use: FastAPI
 * `{detail}` (also a 422 list of `{msg}`), `{message}`, `{error: {message}}` (OpenAI),
 * `{error: "…"}`, OpenViking's envelope `{error: {code, message}}`. Undefined when none fits.
 */
export function serverMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  const detail = record.detail;
  if (typeof detail === 'string' && detail.trim() !== '') return detail.trim();
  if (Array.isArray(detail)) {
    const messages = detail
      .map((item) =>
        typeof item === 'object' && item !== null ? (item as Record<string, unknown>).msg : item,
      )
      .filter((m): m is string => typeof m === 'string');
    if (messages.length > 0) return messages.join('; ');
  }
  const error = record.error;
  if (typeof error === 'object' && error !== null) {
    const e = error as Record<string, unknown>;
    if (typeof e.message === 'string' && e.message.trim() !== '') {
      return typeof e.code === 'string' && e.code !== ''
        ? `${e.code}: ${e.message.trim()}`
        : e.message.trim();
    }
  }
  if (typeof error === 'string' && error.trim() !== '') return error.trim();
  if (typeof record.message === 'string' && record.message.trim() !== '') return record.message.trim();
  return undefined;
}

/**
 * A short, safe description of a non-JSON error body: an HTML page becomes its `<title>`, other
 * text its first 300 characters.
 */
export function summarizeText(text: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1]?.trim();
  if (title) return title.slice(0, 300);
  if (/^\s*<(!doctype|html)/i.test(text)) return 'HTML error page';
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 297)}...` : flat;
}

/** A redactor that masks the given secrets (API keys of this client) and then anything secret-looking. */
export function createScrubber(secrets: readonly (string | undefined)[]): (text: string) => string {
  const known = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 4);
  return (text: string) => {
    let out = text;
    for (const secret of known) out = out.split(secret).join(REDACTED);
    return redactSecrets(out);
  };
}

/** Query parameter names whose values are never shown (`?api_key=…`, `?token=…`). */
const SECRET_QUERY = /(key|token|secret|password|passwd|signature|auth|credential)/i;

/** The URL for messages and errors: secret-named query values masked, userinfo removed. */
export function safeUrl(url: URL): string {
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  for (const name of [...copy.searchParams.keys()]) {
    if (SECRET_QUERY.test(name)) copy.searchParams.set(name, REDACTED);
  }
  return copy.href;
}

/** Response headers worth keeping on an error: all but cookies. Names are lower-cased. */
export function headerRecord(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (name === 'set-cookie' || name === 'cookie') return;
    out[name.toLowerCase()] = value;
  });
  return out;
}
