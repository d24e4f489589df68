import fs from 'node:fs';
import path from 'node:path';
import {
  createFakeExecutable,
  type FakeExecReply,
  type FakeExecutable,
  type FakeInvocation,
} from '@hermes-memory/testkit';
import { contextTreeDir, ensureProject, readContextDocs, searchDocs, slugFor } from './context-tree';

/** The brv version the fake imitates (its NDJSON shapes were read from this release). */
export const FAKE_BRV_VERSION = '3.14.0';

/** The message brv prints for curate and query before an LLM provider is connected. */
export const NO_PROVIDER_ERROR =
  'No provider connected. Run "brv providers connect byterover" to use the free built-in provider, or connect another provider.';
/** brv's answer when nothing in the tree matched the question (its template, no LLM call). */
export function notCoveredTemplate(query: string): string {
  return `**Summary**: No matching knowledge found for "${query}".\n\n**Details**: The topic does not appear to be covered in the context tree. This could mean the topic hasn't been curated yet.\n\n**Sources**: None\n\n**Gaps**: Try rephrasing your query with different terms, or use /curate to add knowledge about this topic.`;
}

/** Answers per project, question and tree state (brv's query cache). */
const queryCache = new Map<string, string>();

/**
 * A fault for the next runs (the conformance kit's fault kinds, in CLI terms):
 * - `status`: brv reports `{"success": false, "data": {"error": …}}` and still exits 0 (how the
 *   real CLI fails when its daemon or LLM call fails);
 * - `reset`: brv crashes mid-stream — a torn line, a stack trace on stderr, exit 1;
 * - `malformed`: exit 0 with output that is not JSON;
 * - `timeout`: brv never answers (until the runner kills it).
 */
export type FakeBrvFault =
  | { type: 'status'; status?: number; retryAfter?: number; count?: number }
  | { type: 'timeout' | 'reset' | 'malformed'; count?: number };

export interface FakeBrvOptions {
  /** An LLM provider is connected (curate and query work). Default true; `brv providers connect` sets it. */
  providerConnected?: boolean;
  /** Every answer comes this much later (real time; for benchmarks). Default 0. */
  latencyMs?: number;
  /** Values to redact from the recorded invocations (e.g. a BRV_API_KEY). */
  secrets?: readonly string[];
}

export interface FakeBrv {
  /** Absolute path of the fake `brv` (pass it as `brvPath`). */
  readonly path: string;
  /** Its directory (prepend to PATH to find it by name). */
  readonly dir: string;
  /** Every run, oldest first (argv, env with secrets redacted, cwd). */
  readonly invocations: FakeInvocation[];
  /** Runs so far. */
  calls(): number;
  /** Runs of one command (`query`, `curate`, `search`, `status`, …). */
  callsOf(command: string): FakeInvocation[];
  /** Whether curate and query find an LLM provider. */
  setProviderConnected(connected: boolean): void;
  /** Make the next `count` runs (default: all until cleared) fail this way. */
  fail(fault: FakeBrvFault): void;
  clearFaults(): void;
  /** Set the latency of every answer (real time). */
  setLatency(ms: number): void;
  /** Answer the next runs with these raw replies (stdout, stderr, exit code, hang), in order. */
  reply(...replies: readonly FakeExecReply[]): void;
  /**
   * Hold the answers of runs of `command` (`curate`, `query`, …) until the returned function is
   * called: a slow brv at a moment of the test's choosing, deterministic unlike a delay. Each held
   * run then answers as it would have (faults included).
   */
  hold(command: string): () => void;
  /** Runs waiting on a hold right now. */
  heldRuns(): number;
  close(): Promise<void>;
}

interface ParsedArgs {
  command: string;
  flags: Record<string, string | true>;
  positional: string[];
}

const FLAGS: Record<string, readonly string[]> = {
  query: ['format', 'timeout'],
  curate: ['format', 'files', 'folder', 'detach', 'timeout'],
  search: ['format', 'limit', 'scope'],
  status: ['format'],
  'providers connect': ['format', 'api-key', 'base-url', 'model'],
};
const BOOLEAN_FLAGS = new Set(['detach']);

/**
 * A contract-faithful fake `brv` on the testkit's fake executable: the same argv, the same
 * NDJSON lines (`{command, data: {event?, …}, success, timestamp}`, exit 0 even when
 * `success` is false), the same oclif errors for bad flags (exit 2), and a real context tree in
 * the project directory (`.brv/context-tree/**.md`): `curate` writes a document, `search` and
 * `query` read them (keyword scoring standing in for brv's BM25 and LLM), `status` reports the
 * tree. The same test cases run against it and against the real brv (`test:real`).
 */
export async function startFakeBrv(options: FakeBrvOptions = {}): Promise<FakeBrv> {
  let connected = options.providerConnected ?? true;
  let latencyMs = options.latencyMs ?? 0;
  const faults: Array<{ fault: FakeBrvFault; left: number }> = [];
  const holds = new Set<{ command: string; released: Promise<void> }>();
  let held = 0;

  const nextFault = (): FakeBrvFault | undefined => {
    const head = faults[0];
    if (!head) return undefined;
    head.left -= 1;
    if (head.left <= 0) faults.shift();
    return head.fault;
  };

  const respond = (run: FakeInvocation): FakeExecReply | Promise<FakeExecReply> => {
    const parsed = parseArgs(run.argv);
    if ('error' in parsed) return { stderr: parsed.error, exitCode: 2 };
    const gate = [...holds].find((h) => h.command === parsed.command);
    if (!gate) return answerRun(parsed, run);
    held += 1;
    return gate.released.then(() => {
      held -= 1;
      return answerRun(parsed, run);
    });
  };

  const answerRun = (parsed: ParsedArgs, run: FakeInvocation): FakeExecReply => {
    const fault = nextFault();
    if (fault) return faultReply(parsed.command, fault);
    const json = parsed.flags.format === 'json';
    const reply = answer(
      parsed,
      run.cwd,
      json,
      () => connected,
      (c) => {
        connected = c;
      },
    );
    return latencyMs > 0 ? { ...reply, delayMs: latencyMs } : reply;
  };

  const exe: FakeExecutable = await createFakeExecutable('brv', {
    responder: respond,
    ...(options.secrets ? { secrets: options.secrets } : {}),
  });

  return {
    path: exe.path,
    dir: exe.dir,
    invocations: exe.invocations,
    calls: () => exe.invocations.length,
    callsOf: (command) => exe.invocations.filter((i) => commandOf(i.argv) === command),
    setProviderConnected(c) {
      connected = c;
    },
    fail(fault) {
      faults.push({ fault, left: fault.count ?? Number.POSITIVE_INFINITY });
    },
    clearFaults() {
      faults.length = 0;
    },
    setLatency(ms) {
      latencyMs = ms;
    },
    reply(...replies) {
      exe.script(...replies);
    },
    hold(command) {
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const entry = { command, released };
      holds.add(entry);
      return () => {
        holds.delete(entry);
        release();
      };
    },
    heldRuns: () => held,
    close: () => exe.close(),
  };
}

function commandOf(argv: readonly string[]): string {
  return argv[0] === 'providers' ? `providers ${argv[1] ?? ''}`.trim() : (argv[0] ?? '');
}

function parseArgs(argv: readonly string[]): ParsedArgs | { error: string } {
  const command = commandOf(argv);
  const known = FLAGS[command];
  if (!known) return { error: ` ›   Error: command ${command || '(none)'} not found\n` };
  const rest = argv.slice(command.split(' ').length);
  const flags: Record<string, string | true> = {};
  const positional: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === '--') {
      positional.push(...rest.slice(i + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const [name, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
      if (!known.includes(name))
        return { error: ` ›   Error: Nonexistent flag: --${name}\n ›   See more help with --help\n` };
      if (BOOLEAN_FLAGS.has(name)) flags[name] = true;
      else {
        const value = inline ?? rest[++i];
        if (value === undefined) return { error: ` ›   Error: Flag --${name} expects a value\n` };
        flags[name] = value;
      }
      continue;
    }
    positional.push(arg);
  }
  const format = flags.format ?? 'text';
  if (format !== 'json' && format !== 'text')
    return { error: ` ›   Error: Expected --format=${String(format)} to be one of: text, json\n` };
  if (
    (command === 'query' || command === 'curate' || command === 'search') &&
    positional.join(' ').trim() === ''
  )
    return {
      error: ` ›   Error: Missing 1 required arg:\n ›   ${command === 'curate' ? 'context' : 'query'}\n`,
    };
  return { command, flags, positional };
}

function line(command: string, data: Record<string, unknown>, success = true): string {
  return `${JSON.stringify({ command, data, success, timestamp: new Date().toISOString() })}\n`;
}

function answer(
  args: ParsedArgs,
  cwd: string,
  json: boolean,
  isConnected: () => boolean,
  setConnected: (c: boolean) => void,
): FakeExecReply {
  const { command, flags, positional } = args;
  const text = positional.join(' ');
  const taskId = `fake-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const failure = (message: string): FakeExecReply =>
    json
      ? { stdout: line(command, { error: message, status: 'error' }, false) }
      : { stderr: ` ›   Error: ${message}\n`, exitCode: 1 };

  switch (command) {
    case 'status': {
      const initialized = fs.existsSync(contextTreeDir(cwd));
      const data: Record<string, unknown> = {
        authStatus: 'not_logged_in',
        contextTreeStatus: initialized ? 'no_vc' : 'not_initialized',
        currentDirectory: cwd,
        projectRoot: cwd,
        ...(initialized
          ? {
              worktreeRoot: cwd,
              resolutionSource: 'direct',
              contextTreeDir: contextTreeDir(cwd),
              contextTreeRelativeDir: path.join('.brv', 'context-tree'),
            }
          : {}),
        cliVersion: FAKE_BRV_VERSION,
      };
      return json
        ? { stdout: line('status', data) }
        : { stdout: `ByteRover CLI ${FAKE_BRV_VERSION}\nContext tree: ${String(data.contextTreeStatus)}\n` };
    }
    case 'search': {
      const limit = Math.min(50, Math.max(1, Number(flags.limit ?? 10) || 10));
      if (!fs.existsSync(contextTreeDir(cwd))) {
        const data = {
          message: 'Context tree not initialized. Run /init to create it.',
          results: [],
          totalFound: 0,
          status: 'completed',
        };
        return json ? { stdout: line('search', data) } : { stdout: `${data.message}\n` };
      }
      const scope = typeof flags.scope === 'string' ? flags.scope : '';
      const found = searchDocs(readContextDocs(cwd), text).filter((d) => d.path.startsWith(scope));
      const results = found.slice(0, limit).map((d) => ({
        excerpt: `---\ntitle: ${d.title}\n---\n\n\n${d.body}`.slice(0, 500),
        path: d.path,
        score: d.score,
        title: d.title,
        backlinkCount: 0,
        origin: 'local',
        symbolKind: 'context',
        symbolPath: d.path,
      }));
      const data = {
        message:
          results.length > 0
            ? `Found ${results.length} result(s). Use read_file to view full content.`
            : 'No results found.',
        results,
        totalFound: found.length,
        status: 'completed',
      };
      return json
        ? { stdout: line('search', data) }
        : { stdout: results.map((r) => `${r.path}  ${r.title}`).join('\n') + '\n' };
    }
    case 'curate': {
      ensureProject(cwd);
      if (!isConnected()) return failure(NO_PROVIDER_ERROR);
      const folder =
        typeof flags.folder === 'string' && !flags.folder.includes('..') ? flags.folder : 'memories';
      const dir = path.join(contextTreeDir(cwd), folder);
      fs.mkdirSync(dir, { recursive: true });
      const slug = slugFor(text);
      let file = path.join(dir, `${slug}.md`);
      for (let n = 2; fs.existsSync(file); n++) file = path.join(dir, `${slug}-${n}.md`);
      const title = text.replace(/\s+/g, ' ').trim().slice(0, 60);
      fs.writeFileSync(file, `---\ntitle: ${title}\n---\n# ${title}\n\n${text.trim()}\n`);
      const logId = `cur-${Date.now()}`;
      const done = {
        event: 'completed',
        logId,
        message: 'Context curated successfully',
        status: 'completed',
        taskId,
      };
      return json
        ? { stdout: line('curate', { event: 'thinking', taskId }) + line('curate', done) }
        : { stdout: 'Context curated successfully\n' };
    }
    case 'query': {
      ensureProject(cwd);
      if (!isConnected()) return failure(NO_PROVIDER_ERROR);
      const docs = readContextDocs(cwd);
      // brv answers a question it answered before from its cache (tier 0): the same text, no
      // matched documents, no top score — as long as the tree did not change.
      const cacheKey = `${cwd}\u0000${text}\u0000${docs.map((d) => `${d.path}:${d.body.length}`).join('|')}`;
      const cached = queryCache.get(cacheKey);
      const matched = searchDocs(docs, text)
        .filter((d) => d.score >= 0.5)
        .slice(0, 3);
      const content =
        cached ??
        (matched.length > 0
          ? matched.map((d) => d.body.replace(/\s+/g, ' ').slice(0, 600)).join('\n\n')
          : notCoveredTemplate(text));
      queryCache.set(cacheKey, content);
      const done = {
        durationMs: 5,
        event: 'completed',
        matchedDocs: cached ? [] : matched.map((d) => ({ path: d.path, score: d.score, title: d.title })),
        result: `${content}\n\n---\nSource: ByteRover Knowledge Base`,
        status: 'completed',
        taskId,
        ...(cached ? { tier: 0 } : { tier: matched.length > 0 ? 3 : 2, topScore: matched[0]?.score ?? 0 }),
      };
      return json
        ? {
            stdout:
              line('query', { event: 'thinking', taskId }) +
              (matched.length > 0 && !cached ? line('query', { content, event: 'response', taskId }) : '') +
              line('query', done),
          }
        : { stdout: `${content}\n` };
    }
    case 'providers connect': {
      const provider = positional[0] ?? '';
      if (provider === '')
        return { stderr: ' ›   Error: Missing 1 required arg:\n ›   provider\n', exitCode: 2 };
      setConnected(true);
      const data = { model: flags.model ?? 'default', providerId: provider, providerName: provider };
      return json ? { stdout: line('providers connect', data) } : { stdout: `Connected to ${provider}\n` };
    }
    default:
      return { stderr: ` ›   Error: command ${command} not found\n`, exitCode: 2 };
  }
}

function faultReply(command: string, fault: FakeBrvFault): FakeExecReply {
  switch (fault.type) {
    case 'timeout':
      return { hang: true };
    case 'reset':
      return {
        stdout: `${line(command, { event: 'thinking', taskId: 'fake-crash' })}{"command":"${command}","data":{"ev`,
        stderr: 'Error: socket hang up\n    at Socket.socketOnEnd (node:_http_client:524:23)\n',
        exitCode: 1,
      };
    case 'malformed':
      return { stdout: '<html><body>502 Bad Gateway</body></html>\n' };
    case 'status':
      return {
        stdout: line(
          command,
          { error: `Daemon request failed with status ${fault.status ?? 500}`, status: 'error' },
          false,
        ),
      };
  }
}
