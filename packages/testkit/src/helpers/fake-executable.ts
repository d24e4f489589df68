import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** One run of the fake program, as recorded (secret-named env values redacted). */
export interface FakeInvocation {
  /** Arguments after the program name. */
  argv: string[];
  env: Record<string, string>;
  /** Everything read from stdin ('' when it was closed, as a runner should leave it). */
  stdin: string;
  cwd: string;
}

/** How the fake program answers one run. */
export interface FakeExecReply {
  stdout?: string;
  stderr?: string;
  /** Default 0. */
  exitCode?: number;
  /** Answer after this long (real time; for benchmarks and slow-CLI demos). */
  delayMs?: number;
  /** Never answer: the program runs until it is killed (for timeout tests). */
  hang?: boolean;
}

/** Computes a reply from the run; it sees the real environment (the recording is redacted). */
export type FakeExecResponder = (invocation: FakeInvocation) => FakeExecReply | Promise<FakeExecReply>;

export interface FakeExecutable {
  /** Absolute path of the program. */
  readonly path: string;
  /** Its directory (prepend it to PATH to make the program findable by name). */
  readonly dir: string;
  /** Every run so far, oldest first. */
  readonly invocations: FakeInvocation[];
  /** Queue replies (consumed in order; then the responder, else exit 0 with no output). */
  script(...replies: readonly (FakeExecReply | FakeExecResponder)[]): FakeExecutable;
  /** Set the responder used once the script is empty. */
  respondWith(responder: FakeExecResponder | null): FakeExecutable;
  /** Remove the program and stop answering (a still-running program then exits with 70). */
  close(): Promise<void>;
}

const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)/i;

/**
 * The program: a Node script (absolute shebang, so no `node` on PATH is needed) that reads stdin
 * to its end, reports argv, env, stdin and cwd to the test process over loopback HTTP, and prints
 * the answer it gets back.
 */
function programSource(control: string): string {
  return `#!${process.execPath}
'use strict';
const http = require('node:http');
const chunks = [];
const report = () => {
  const body = JSON.stringify({ argv: process.argv.slice(2), env: process.env, stdin: Buffer.concat(chunks).toString('utf8'), cwd: process.cwd() });
  const req = http.request(${JSON.stringify(control)}, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
    let text = '';
    res.on('data', (d) => (text += d));
    res.on('end', () => {
      let reply;
      try { reply = JSON.parse(text); } catch { process.stderr.write('fake executable: bad control reply\\n'); process.exit(70); }
      if (reply.hang) { setInterval(() => {}, 1 << 30); return; }
      setTimeout(() => {
        if (reply.stdout) process.stdout.write(reply.stdout);
        if (reply.stderr) process.stderr.write(reply.stderr);
        process.exitCode = reply.exitCode ?? 0;
      }, reply.delayMs ?? 0);
    });
  });
  req.on('error', () => process.exit(70));
  req.end(body);
};
if (process.stdin.isTTY) report();
else {
  process.stdin.on('data', (d) => chunks.push(d));
  process.stdin.on('end', report);
  process.stdin.on('error', report);
}
`;
}

/**
 * A scripted command-line program for tests of process-backed providers (ByteRover's `brv`, a
 * local server launcher): it records each run's argv, env and stdin and answers with stdout,
 * stderr, an exit code, a delay, or a hang — without a shell, a real CLI or any network.
 *
 * ```ts
 * const brv = await createFakeExecutable('brv');
 * brv.script({ stdout: '{"success":true,"data":{"event":"completed"}}\n' });
 * const result = await runCommand(brv.path, ['query', '--', 'tea'], { env: childEnv(env) });
 * expect(brv.invocations[0].argv).toEqual(['query', '--', 'tea']);
 * ```
 */
export async function createFakeExecutable(
  name: string,
  options: { responder?: FakeExecResponder; secrets?: readonly string[] } = {},
): Promise<FakeExecutable> {
  if (!/^[A-Za-z0-9._-]+$/.test(name))
    throw new Error(`fake executable name must be a plain file name, got '${name}'`);
  const invocations: FakeInvocation[] = [];
  const queue: Array<FakeExecReply | FakeExecResponder> = [];
  let responder: FakeExecResponder | null = options.responder ?? null;
  const secrets = (options.secrets ?? []).filter((s) => s.length >= 4);

  const redact = (env: Record<string, string>): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(env)) {
      let v = SECRET_NAME.test(key) ? '[redacted]' : value;
      for (const secret of secrets) v = v.split(secret).join('[redacted]');
      out[key] = v;
    }
    return out;
  };

  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (d: Buffer) => {
      text += d.toString();
    });
    req.on('end', async () => {
      const run = JSON.parse(text) as FakeInvocation;
      invocations.push({ ...run, env: redact(run.env) });
      const next = queue.shift() ?? responder;
      let reply: FakeExecReply = {};
      try {
        reply = typeof next === 'function' ? await next(run) : (next ?? {});
      } catch (error) {
        reply = { stderr: `fake executable responder failed: ${(error as Error).message}\n`, exitCode: 70 };
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const control = `http://127.0.0.1:${(server.address() as AddressInfo).port}/run`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-fake-exec-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, programSource(control), { mode: 0o755 });
  let closing: Promise<void> | undefined;

  const fake: FakeExecutable = {
    path: file,
    dir,
    invocations,
    script(...replies) {
      queue.push(...replies);
      return fake;
    },
    respondWith(next) {
      responder = next;
      return fake;
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        fs.rmSync(dir, { recursive: true, force: true });
        server.closeAllConnections();
        server.close(() => resolve());
      });
      return closing;
    },
  };
  return fake;
}
