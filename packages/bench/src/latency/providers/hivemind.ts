import { loadModule } from '../../packages';
import type { RemoteProviderEntry } from '../remote';

/**
 * Hivemind against its fake homeserver and fake notebook: the agent has one peer (an introduction
 * by a person's client) and a notebook to search, so every turn serves a roster and a notebook
 * hint from memory while its sync and search run in the background. Faults hit both servers.
 */
export const hivemind: RemoteProviderEntry = {
  name: 'hivemind',
  async start() {
    const { createHivemindProvider, MatrixClient } = await loadModule(
      '@hermes-memory/hivemind',
      () => import('@hermes-memory/hivemind'),
    );
    const { startFakeHomeserver, startFakeNotebook, FAKE_NOTEBOOK_KEY } = await loadModule(
      '@hermes-memory/hivemind/testing',
      () => import('@hermes-memory/hivemind/testing'),
    );
    const homeserver = await startFakeHomeserver();
    const notebook = await startFakeNotebook({
      entries: [{ pseudonym: 'Bench#000001', content: 'Notes on memory, recall, agents and introductions.' }],
    });
    const [alice, agent, peer] = ['alice', 'hermes-of-bench', 'hermes-of-peer'].map((n) =>
      homeserver.registerUser(n),
    );
    const operator = new MatrixClient({
      homeserver: homeserver.url,
      ...alice!,
      timeoutMs: 5000,
      maxRetries: 0,
    });
    const room = await operator.createRoom({
      name: 'Introduction',
      preset: 'private_chat',
      invite: [agent!.userId, peer!.userId],
    });
    await operator.send(room, 'm.room.message', {
      msgtype: 'm.text',
      body: `About ${peer!.userId}: a peer for the bench.`,
    });
    const fakes = [homeserver, notebook];
    return {
      create: () =>
        createHivemindProvider(
          {
            homeserver: homeserver.url,
            userId: agent!.userId,
            accessToken: agent!.accessToken,
            notebookUrl: notebook.url,
            notebookKey: FAKE_NOTEBOOK_KEY,
          },
          { env: {}, providerConfig: {} },
        ),
      failAll: (fault) => {
        for (const fake of fakes) fake.fail({ ...fault, count: 1_000_000 });
      },
      clearFaults: () => {
        for (const fake of fakes) fake.clearFaults();
      },
      close: async () => {
        await homeserver.close();
        await notebook.close();
      },
    };
  },
};
