import { describe, expect, it } from 'vitest';
import { collectSecrets, isSecretName, REDACTED, redactSecrets, redactSecretsDeep } from './redact';

const OPENAI = 'sk-proj-AbCdEf0123456789XyZ';
const GH = 'ghp_abcdefghijklmnopqrstuvwxyz012345';

describe('redactSecrets', () => {
  it('masks key prefixes, bearer tokens, secret assignments and URL passwords', () => {
    const out = redactSecrets(
      `key ${OPENAI} and ${GH}; Authorization: Bearer abcdef.ghijkl.mnop; export OPENAI_API_KEY="s3cr3t-value-42"; postgres://bob:hunter2pw@db:5432/x`,
    );
    expect(out).not.toContain(OPENAI);
    expect(out).not.toContain(GH);
    expect(out).not.toContain('abcdef.ghijkl.mnop');
    expect(out).not.toContain('s3cr3t-value-42');
    expect(out).not.toContain('hunter2pw');
    expect(out).toContain(`OPENAI_API_KEY="${REDACTED}"`);
    expect(out).toContain(`postgres://bob:${REDACTED}@db:5432/x`);
  });

  it('masks a secret everywhere in the text once it is found anywhere', () => {
    const out = redactSecrets('DB_PASSWORD=Tr0ub4dor&3xyz\nlater the user pasted Tr0ub4dor&3xyz again');
    expect(out).not.toContain('Tr0ub4dor&3xyz');
    expect(out.split(REDACTED)).toHaveLength(3);
  });

  it('does not spread a plain-word false positive, and leaves type annotations and placeholders', () => {
    expect(redactSecrets('apiKey: string')).toBe('apiKey: string');
    const placeholder = ['API_KEY=$', '{OPENAI_API_KEY}'].join('');
    expect(redactSecrets(placeholder)).toBe(placeholder);
    expect(redactSecrets('token: process.env.TOKEN')).toBe('token: process.env.TOKEN');
    const out = redactSecrets('SECRET=password1 is not propagated as a word: passwordless');
    expect(out).toContain('passwordless');
  });

  it('leaves data: URLs untouched, even when they contain key-like text', () => {
    const data = `data:image/png;base64,iVBORw0KGgo${'A'.repeat(8)}AKIAABCDEFGHIJKLMNOP+/=`;
    const text = `see ${data} and AKIAABCDEFGHIJKLMNOP outside`;
    const out = redactSecrets(text);
    expect(out).toContain(data);
    expect(out).toBe(`see ${data} and ${REDACTED} outside`);
  });

  it('leaves ordinary text alone', () => {
    const text = 'User prefers dark mode; the deploy token budget is 4096.';
    expect(redactSecrets(text)).toBe(text);
    expect(redactSecrets('')).toBe('');
    expect(collectSecrets(text)).toEqual([]);
  });
});

describe('redactSecrets: header, JSON and URL forms (issue #12)', () => {
  const V = 'Zx9-secret-value-4242';

  it.each([
    [`x-api-key: ${V}`, `x-api-key: ${REDACTED}`],
    [`X-Auth-Token: ${V}`, `X-Auth-Token: ${REDACTED}`],
    [`Authorization: ${V}`, `Authorization: ${REDACTED}`],
    [`Authorization: Bearer ${V}`, `Authorization: Bearer ${REDACTED}`],
    [`api-key:${V}`, `api-key:${REDACTED}`],
    [`{"api_key": "${V}"}`, `{"api_key": "${REDACTED}"}`],
    [`{"apiKey":"${V}","model":"gpt"}`, `{"apiKey":"${REDACTED}","model":"gpt"}`],
    [`{"token": "${V}"}`, `{"token": "${REDACTED}"}`],
    [`{"password": "correct horse battery staple"}`, `{"password": "${REDACTED}"}`],
    [`{'client_secret': '${V}'}`, `{'client_secret': '${REDACTED}'}`],
    [`aws_secret_access_key = ${V}`, `aws_secret_access_key = ${REDACTED}`],
    [
      `https://api.example.com/v1?api_key=${V}&page=2`,
      `https://api.example.com/v1?api_key=${REDACTED}&page=2`,
    ],
    [`https://maps.example.com/x?key=${V}#top`, `https://maps.example.com/x?key=${REDACTED}#top`],
    [`https://h/x?sig=${V}&access_token=${V}2`, `https://h/x?sig=${REDACTED}&access_token=${REDACTED}`],
    [`https://${V}@github.com/org/repo.git`, `https://${REDACTED}@github.com/org/repo.git`],
    [`redis://:${V}@cache:6379`, `redis://:${REDACTED}@cache:6379`],
  ])('%s', (input, expected) => {
    expect(redactSecrets(input)).toBe(expected);
  });

  it('leaves names that only contain a secret word, and generic query parameters, alone', () => {
    for (const text of [
      'author: Jane Doe-Smithers',
      'token_count: 1234567',
      'max_tokens: 4096000',
      'https://example.com/search?q=passwordless&page=123456',
      'https://bob@example.com/home',
      '{"keyboard": "qwerty-layout"}',
    ]) {
      expect(redactSecrets(text)).toBe(text);
    }
    expect(isSecretName('OPENAI_API_KEY')).toBe(true);
    expect(isSecretName('apiKey')).toBe(true);
    expect(isSecretName('monkey')).toBe(false);
    expect(isSecretName('tokenizer')).toBe(false);
  });
});

describe('redactSecretsDeep', () => {
  it('treats a whole object as one hand-off and never mutates the input', () => {
    const messages = [
      { role: 'user', content: 'my GITHUB_TOKEN=tok_9f8e7d6c5b4a please use it' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'run', arguments: '{"auth":"tok_9f8e7d6c5b4a"}' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'again: tok_9f8e7d6c5b4a' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,dG9rXzlmOGU3ZDZjNWI0YQ==' } },
        ],
      },
    ];
    const before = JSON.stringify(messages);
    const out = redactSecretsDeep(messages);
    expect(JSON.stringify(messages)).toBe(before);
    expect(out).not.toBe(messages);
    expect(JSON.stringify(out)).not.toContain('tok_9f8e7d6c5b4a');
    expect(out[1]?.tool_calls?.[0]?.function.arguments).toBe(`{"auth":"${REDACTED}"}`);
    const parts = out[2]?.content as Array<{ image_url?: { url: string } }>;
    expect(parts[1]?.image_url?.url).toBe('data:image/png;base64,dG9rXzlmOGU3ZDZjNWI0YQ==');
    expect(out[1]?.content).toBeNull();
  });

  it('passes non-plain objects through and survives cycles', () => {
    const date = new Date(0);
    const node: Record<string, unknown> = { text: `k=${OPENAI}`, date };
    node.self = node;
    const out = redactSecretsDeep(node);
    expect(out.text).toBe(`k=${REDACTED}`);
    expect(out.date).toBe(date);
    expect(out.self).toBe(out);
    expect(redactSecretsDeep(42)).toBe(42);
    expect(redactSecretsDeep(`x ${GH}`)).toBe(`x ${REDACTED}`);
  });
});
