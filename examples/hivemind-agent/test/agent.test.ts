import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runHivemindDemo } from '../src/main';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
});

describe('hivemind-agent (offline, against the shipped fake homeserver)', () => {
  it('three agents meet through an introduction, talk, and a restarted agent still knows its peers', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hivemind-agent-test-'));
    homes.push(home);
    let out = '';
    const result = await runHivemindDemo({ home, env: { PATH: process.env.PATH }, write: (s) => (out += s) });
    expect(result.mode).toBe('fake');
    expect(out).toContain('Offline mode');
    expect(result.bobRecall).toContain('<memory-context>');
    expect(result.bobRecall).toContain(
      'hermes-of-carol (introduced by hermes-of-ann): Carol specializes in TEE attestation',
    );
    const inbox = JSON.parse(result.carolInbox) as { messages: Array<{ from: string; text: string }> };
    expect(inbox.messages[0]).toMatchObject({
      from: 'hermes-of-bob',
      text: 'Could you audit my enclave next week?',
    });
    expect(result.restartedRecall).toContain('You know 2 peers: hermes-of-ann, hermes-of-carol.');
  }, 30_000);
});
