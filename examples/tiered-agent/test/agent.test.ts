import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runTieredDemo, type TieredRun } from '../src/main';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
});

function expectTiered(run: TieredRun) {
  expect(run.roles).toEqual({ builtin: 'builtin', holographic: 'canonical', hivemind: 'secondary' });
  // Turn 1: hivemind's peer and the notebook hint; holographic has nothing yet.
  expect(run.firstRecall).toContain('## Recall from hivemind');
  expect(run.firstRecall).toContain('hermes-of-carol (introduced by alice): Carol audits SGX enclaves');
  expect(run.firstRecall).toContain(
    '1 notebook entry may be relevant — use hivemind_search_notebook to explore.',
  );
  expect(run.firstRecall).not.toContain('## Recall from holographic');
  // Turn 2: the canonical provider's fact first, then the secondary's peers, each labelled.
  expect(run.recall).toContain('## Recall from holographic');
  expect(run.recall).toContain('SGX enclave for payments');
  expect(run.recall).toContain('## Recall from hivemind');
  expect(run.recall.indexOf('## Recall from holographic')).toBeLessThan(
    run.recall.indexOf('## Recall from hivemind'),
  );
  // Nothing of the conversation was sent to the homeserver.
  expect(run.homeserverWrites).toBe(0);
}

describe('tiered-agent (offline, against the shipped fakes)', () => {
  it('holographic canonical + hivemind secondary, wired in code and from config.yaml, recall labelled per provider', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tiered-agent-test-'));
    homes.push(home);
    let out = '';
    const result = await runTieredDemo({ home, write: (s) => (out += s) });
    expectTiered(result.inCode);
    expectTiered(result.fromConfig);
    expect(out).toMatch(/config\.yaml:\n\s+memory:\n\s+provider: holographic\n\s+secondary:\n\s+- hivemind/);
    expect(out).not.toMatch(/syt_/); // the access token stays in .env
  }, 60_000);
});
