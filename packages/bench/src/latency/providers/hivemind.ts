import { loadModule } from '../../packages';
import type { RemoteProviderEntry } from '../remote';

/**
 * Hivemind against its fake homeserver and fake notebook: the agent knows `peers` peers (each
 * introduced by a person's client in its own room) and a notebook to search, so every turn serves a
 * roster and a notebook hint from memory while its sync and search run in the background. Faults
 * hit both servers.
 */
function hivemindEntry(name: string, peers: number): RemoteProviderEntry {
  return {
    name,
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
        entries: [
          { pseudonym: 'Bench#000001', content: 'Notes on memory, recall, agents and introductions.' },
        ],
      });
      const alice = homeserver.registerUser('alice');
      const agent = homeserver.registerUser('hermes-of-bench');
      const operator = new MatrixClient({
        homeserver: homeserver.url,
        ...alice,
        timeoutMs: 5000,
        maxRetries: 0,
      });
      for (let i = 0; i < peers; i++) {
        const peer = homeserver.registerUser(peers === 1 ? 'hermes-of-peer' : `hermes-of-peer-${i}`);
        const room = await operator.createRoom({
          name: 'Introduction',
          preset: 'private_chat',
          invite: [agent.userId, peer.userId],
        });
        await operator.send(room, 'm.room.message', {
          msgtype: 'm.text',
          body: `About ${peer.userId}: a peer for the bench, number ${i + 1}.`,
        });
      }
      const fakes = [homeserver, notebook];
      return {
        create: () =>
          createHivemindProvider(
            {
              homeserver: homeserver.url,
              userId: agent.userId,
              accessToken: agent.accessToken,
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
}

export const hivemind = hivemindEntry('hivemind', 1);

/**
 * A hundred introduced peers: the roster the agent carries grows with every introduction, so this
 * shows whether a warm turn still stays under budget when the agent knows many peers. Run only when
 * named (`remote-run.ts hivemind hivemind-peers100 --healthy`).
 */
export const hivemindPeers100 = hivemindEntry('hivemind-peers100', 100);
