import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type CommandResult, runCommand } from '@hermes-memory/core';
import {
  type FakeChatRequest,
  type FakeOpenAI,
  messageText,
  startFakeOpenAI,
} from '@hermes-memory/testkit/fake-openai';

/** The six service URLs brv reads; offline they must point at a loopback server (sdks.md §1.5). */
export const BRV_SERVICE_URL_VARIABLES = [
  'BRV_IAM_BASE_URL',
  'BRV_COGIT_BASE_URL',
  'BRV_BILLING_BASE_URL',
  'BRV_LLM_BASE_URL',
  'BRV_WEB_APP_URL',
  'BRV_GIT_REMOTE_BASE_URL',
] as const;

export interface RealBrvEnvironment {
  /** The real brv executable. */
  readonly brvPath: string;
  /** The environment to run brv (and the provider) with: temp HOME and data dir, loopback URLs. */
  readonly env: Record<string, string>;
  /** The OpenAI-compatible fake brv's agent talks to. */
  readonly llm: FakeOpenAI;
  /** A second environment (own HOME and data dir, so its own daemon) with no LLM provider connected. */
  envWithoutLlm(): Record<string, string>;
  /** `brv providers connect openai-compatible` to the fake LLM, in `env`'s data dir. */
  connectLlm(): Promise<CommandResult>;
  /** Pids of the daemons started so far (from each data dir's daemon.json). */
  daemonPids(): number[];
  /** Stop every daemon by its pid (process group), close the servers, remove the temp dirs. */
  stop(): Promise<void>;
}

/**
 * Run the real `brv` (byterover-cli) offline, as the integration suite does: a temporary HOME and
 * `BRV_DATA_DIR`, the six `BRV_*_BASE_URL` on a loopback server answering 404 (brv's daemon dies
 * offline without them), `BRV_DISABLE_AUTOUPDATE=1`, and testkit's OpenAI-compatible fake as its
 * LLM, answering from the context brv pre-fetched into its prompt. `stop()` kills every daemon it
 * started by the pid in its `daemon.json`. PATH holds only `node`, so brv's own `npm list -g`
 * probe fails fast instead of costing a second per command.
 */
export async function startRealBrvEnvironment(options: { brvPath: string }): Promise<RealBrvEnvironment> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hm-real-brv-')));
  const bin = path.join(root, 'bin');
  fs.mkdirSync(bin);
  fs.symlinkSync(process.execPath, path.join(bin, 'node'));
  const home = path.join(root, 'home');
  fs.mkdirSync(home);

  const services = http.createServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":"not found"}');
  });
  await new Promise<void>((resolve) => services.listen(0, '127.0.0.1', resolve));
  const servicesUrl = `http://127.0.0.1:${(services.address() as AddressInfo).port}`;
  const llm = await startFakeOpenAI({ fallback: groundedAnswer });

  const dataDirs: string[] = [];
  const envFor = (name: string, envHome: string): Record<string, string> => {
    const dataDir = path.join(root, name);
    fs.mkdirSync(dataDir, { recursive: true });
    fs.mkdirSync(envHome, { recursive: true });
    dataDirs.push(dataDir);
    const env: Record<string, string> = {
      PATH: bin,
      HOME: envHome,
      BRV_DATA_DIR: dataDir,
      BRV_DISABLE_AUTOUPDATE: '1',
    };
    for (const name of BRV_SERVICE_URL_VARIABLES) env[name] = servicesUrl;
    return env;
  };
  const env = envFor('data', home);

  const daemonPids = (): number[] => {
    const pids: number[] = [];
    for (const dir of dataDirs) {
      try {
        const pid = (JSON.parse(fs.readFileSync(path.join(dir, 'daemon.json'), 'utf8')) as { pid?: unknown })
          .pid;
        if (typeof pid === 'number' && pid > 1) pids.push(pid);
      } catch {
        // no daemon started for this data dir
      }
    }
    return pids;
  };

  return {
    brvPath: options.brvPath,
    env,
    llm,
    // brv keeps the chosen provider under HOME (~/.config/brv) and its keys in the data dir: both fresh.
    envWithoutLlm: () => envFor(`data-${dataDirs.length}`, path.join(root, `home-${dataDirs.length}`)),
    connectLlm: () =>
      runCommand(
        options.brvPath,
        [
          'providers',
          'connect',
          'openai-compatible',
          '--base-url',
          llm.url,
          '--api-key',
          'sk-fake-brv-llm',
          '--model',
          'fake-chat',
          '--format',
          'json',
        ],
        { env, cwd: home, timeoutMs: 120_000 },
      ),
    daemonPids,
    async stop() {
      for (const pid of daemonPids()) await stopGroup(pid);
      await llm.close();
      services.closeAllConnections();
      await new Promise<void>((resolve) => services.close(() => resolve()));
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** SIGTERM to the daemon's process group (it leads one, its agents inside), SIGKILL after 5 s. */
async function stopGroup(pid: number): Promise<void> {
  const alive = () => {
    try {
      process.kill(pid, 0);
      return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  };
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig);
    } catch {
      try {
        process.kill(pid, sig);
      } catch {
        // gone
      }
    }
  };
  if (!alive()) return;
  signal('SIGTERM');
  for (let i = 0; i < 100 && alive(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  if (alive()) signal('SIGKILL');
}

/**
 * The fake LLM's answer: the documents brv pre-fetched into the query prompt (its grounding rule
 * says to answer from them), "not covered" when there were none, a short acknowledgement for
 * curation prompts.
 */
function groundedAnswer(request: FakeChatRequest): string {
  const user = [...request.messages].reverse().find((m) => m.role === 'user');
  const text = user ? messageText(user.content) : '';
  const context = /## Pre-fetched Context\n([\s\S]*?)(?:\n## |$)/.exec(text)?.[1];
  if (context) {
    const lines = context
      .split('\n')
      .map((l) => l.trim())
      .filter(
        (l) => l !== '' && !/^(###|\*\*Source\*\*|---|title:|The following relevant knowledge)/.test(l),
      );
    if (lines.length > 0) return lines.join(' ');
  }
  if (/Curate using|curat/i.test(text)) return 'Curated.';
  return 'This topic is not covered in the knowledge base.';
}
