/**
 * The OpenViking endpoint as the reference accepts it: a bare loopback host gets the local
 * server's port (1933), a missing scheme becomes `http://`, and only plain `http(s)://host[:port]
 * [/path]` URLs pass — no credentials, query or fragment in the URL, and never a cloud-metadata
 * address (an SSRF floor: an invalid endpoint disables the provider, it is never replaced).
 */

export const DEFAULT_ENDPOINT = 'http://127.0.0.1:1933';
export const HOSTED_ENDPOINT = 'https://api.vikingdb.cn-beijing.volces.com/openviking';
const LOCAL_PORT = 1933;

export type EndpointCheck = { ok: true; endpoint: string } | { ok: false; reason: string };

/**
 * Hosts no endpoint may name: instance-metadata services (AWS/GCP/Azure/OpenStack, Alibaba,
 * Oracle, the AWS IPv6 one) and the unspecified addresses. Checked after normalising, so
 * `169.254.169.254`, `[fd00:ec2::254]` and `metadata.google.internal.` are all caught.
 */
const BLOCKED_HOSTS = new Set([
  '169.254.169.254',
  '169.254.170.2',
  '100.100.100.200',
  '192.0.0.192',
  'fd00:ec2::254',
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  '0.0.0.0',
  '::',
]);

/** Normalise and validate an endpoint (see the module comment). Never throws. */
export function checkEndpoint(raw: string): EndpointCheck {
  let text = raw.trim();
  if (text === '') return { ok: false, reason: 'the OpenViking endpoint is empty' };
  if (/[\s\u0000-\u001f\u007f]/.test(text))
    return { ok: false, reason: 'the OpenViking endpoint contains whitespace or control characters' };
  const bare = text.toLowerCase();
  if (bare === 'localhost' || bare === '127.0.0.1')
    return { ok: true, endpoint: `http://${bare}:${LOCAL_PORT}` };
  if (bare === '::1' || bare === '[::1]') return { ok: true, endpoint: `http://[::1]:${LOCAL_PORT}` };
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) text = `http://${text}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: `the OpenViking endpoint '${redactUserinfo(raw)}' is not a valid URL` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return {
      ok: false,
      reason: `the OpenViking endpoint must be http or https, not ${url.protocol.replace(':', '')}`,
    };
  if (url.hostname === '') return { ok: false, reason: 'the OpenViking endpoint has no host' };
  if (url.username !== '' || url.password !== '' || /@/.test(text.split('/')[2] ?? ''))
    return {
      ok: false,
      reason: 'the OpenViking endpoint must not carry credentials (user:password@); use the API key',
    };
  if (url.search !== '' || text.includes('?'))
    return { ok: false, reason: 'the OpenViking endpoint must not have a query string' };
  if (url.hash !== '' || text.includes('#'))
    return { ok: false, reason: 'the OpenViking endpoint must not have a fragment' };
  const host = hostKey(url.hostname);
  if (BLOCKED_HOSTS.has(host) || isLinkLocal(host))
    return {
      ok: false,
      reason: `the OpenViking endpoint names a blocked address (${host}): cloud metadata and unspecified addresses are refused`,
    };
  const path = url.pathname.replace(/\/+$/, '');
  return { ok: true, endpoint: `${url.protocol}//${url.host}${path}` };
}

/** A loopback `http://` endpoint: the only kind the local server is started for. */
export function loopbackTarget(endpoint: string): { host: string; port: number } | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:') return null;
  const host = hostKey(url.hostname);
  if (host !== 'localhost' && host !== '::1' && !/^127\.\d+\.\d+\.\d+$/.test(host)) return null;
  return { host: host === '::1' ? '::1' : host, port: url.port === '' ? 80 : Number(url.port) };
}

/** Lower-cased, without IPv6 brackets or a trailing dot. */
function hostKey(hostname: string): string {
  return hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
}

/** 169.254.0.0/16 (link-local, where metadata services live) and IPv4-mapped forms of it. */
function isLinkLocal(host: string): boolean {
  const v4 = host.replace(/^::ffff:/, '');
  if (/^169\.254\.\d+\.\d+$/.test(v4)) return true;
  // The URL parser writes ::ffff:169.254.169.254 as ::ffff:a9fe:a9fe.
  return /^::ffff:a9fe:[0-9a-f]{1,4}$/.test(host) || /^fe80:/.test(host);
}

function redactUserinfo(raw: string): string {
  return raw.replace(/\/\/[^/@]*@/, '//***@');
}
