import { describeMemoryProvider } from '@hermes-memory/testkit/vitest';
import { afterAll } from 'vitest';
import { createHivemindProvider } from './index';
import { clientFor, introduceByHand, settingsFor } from './test-support';
import { FAKE_NOTEBOOK_KEY, type FakeMatrixAccount, startFakeHomeserver, startFakeNotebook } from './testing';

// The conformance kit against the fake homeserver. Each HERMES_HOME is one agent account with one
// peer, introduced by an operator, so the tools have someone to talk to.
//
// Honest capabilities: hivemind is remote and has tools; it is a read-only secondary, so it claims
// no turn sync, no mirrors and no persistence of conversation text (decision 0130: it does not
// receive the conversation's writes). Its prefetch serves a roster of peers, not stored text the
// kit could seed and find again, so `prefetch` is not claimed; the roster's turn behaviour (first
// turn bounded, later turns served from the last background sync) is tested in
// hivemind-provider.test.ts. The safety checks run: every tool result is fence-neutralised and
// what is sent passes the write scanner.
const server = await startFakeHomeserver();
const notebook = await startFakeNotebook({
  entries: [{ pseudonym: 'Conformance#000001', content: 'Notes about agents, memory and recall.' }],
});
afterAll(async () => {
  await server.close();
  await notebook.close();
});

const accounts = new Map<string, FakeMatrixAccount>();
let counter = 0;

async function accountFor(home: string): Promise<FakeMatrixAccount> {
  const known = accounts.get(home);
  if (known) return known;
  counter += 1;
  const me = server.registerUser(`agent-${counter}`);
  const peer = server.registerUser(`peer-${counter}`);
  const operator = server.registerUser(`operator-${counter}`);
  await introduceByHand(
    clientFor(server, operator),
    { userId: me.userId, about: 'The agent under test.' },
    { userId: peer.userId, about: 'A helpful peer.' },
  );
  accounts.set(home, me);
  return me;
}

describeMemoryProvider('hivemind', {
  create: async ({ hermesHome }) =>
    createHivemindProvider(settingsFor(server, await accountFor(hermesHome)), {
      env: {},
      providerConfig: {},
    }),
  capabilities: {
    tools: true,
    persistence: false,
    prefetch: false,
    sync: false,
    mirrors: false,
    remote: true,
  },
  writesOn: {
    tools: { hivemind_send_to_peer: { peer: 'peer', message: 'Hello from conformance.' } },
  },
  snapshot: () => server.dump(),
  backendCalls: () => server.requests.length,
  settle: (provider) => provider.idle(),
  pendingWork: (provider) => provider.pendingWork,
  injectFault: (fault) => {
    server.fail(fault);
  },
  clearFaults: () => server.clearFaults(),
});

// The notebook alone (no Matrix account): one read-only tool against the fake notebook, its
// background search per turn, and the fault, deadline and safety checks on it. Nothing is written.
describeMemoryProvider(
  'hivemind (notebook only)',
  {
    create: () =>
      createHivemindProvider(
        { notebookUrl: notebook.url, notebookKey: FAKE_NOTEBOOK_KEY, maxRetries: 0, notebookTimeoutMs: 2000 },
        { env: {}, providerConfig: {} },
      ),
    capabilities: {
      tools: true,
      persistence: false,
      prefetch: false,
      sync: false,
      mirrors: false,
      remote: true,
    },
    writesOn: {},
    snapshot: () => notebook.dump(),
    backendCalls: () => notebook.requests.length,
    settle: (provider) => provider.idle(),
    pendingWork: (provider) => provider.pendingWork,
    injectFault: (fault) => {
      notebook.fail(fault);
    },
    clearFaults: () => notebook.clearFaults(),
  },
  {
    skip: {
      'context.writes-observable':
        'with only the notebook configured the provider has no write path (one read-only search tool)',
      'safety.fence-escape':
        'no write path to plant the payload through; notebook entries with fence markup are checked in notebook.test.ts',
    },
  },
);
