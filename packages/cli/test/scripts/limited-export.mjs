// Child process for home-safety.test.ts, run by testkit's runUnderWriteLimit in three phases:
// setup (no limit: memory entries and an earlier export), act (`export --out` under a full disk or
// a file-size limit), check (no limit: the earlier export must be intact, no temp file left).
import fs from 'node:fs';
import path from 'node:path';
import { SessionStore } from '@hermes-memory/builtin';
import { runCli } from '../../dist/index.js';

const [phase] = process.argv.slice(2);
const dir = process.env.HM_LIMIT_DIR;
const home = path.join(dir, 'home');
const out = path.join(dir, 'export.jsonl');
const OLD =
  '{"type":"hermes-memory-export","version":1}\n{"type":"memory","target":"memory","content":"old"}\n';

async function cli(args) {
  let stderr = '';
  const io = {
    stdout: () => {},
    stderr: (t) => {
      stderr += t;
    },
    env: {},
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
    cwd: dir,
  };
  const code = await runCli(['--home', home, ...args], io);
  return { code, stderr };
}

if (phase === 'setup') {
  await cli(['memory', 'add', 'The user deploys on Tuesdays']);
  const sessions = new SessionStore({ hermesHome: home });
  sessions.createSession('20260101_100000_aaaaaa', { source: 'cli' });
  for (let i = 0; i < 400; i++)
    sessions.appendMessage('20260101_100000_aaaaaa', {
      role: 'user',
      content: `message ${i} ${'x'.repeat(200)}`,
    });
  sessions.close();
  fs.writeFileSync(out, OLD, { mode: 0o600 });
  console.log(JSON.stringify({ phase }));
} else if (phase === 'act') {
  console.log(JSON.stringify({ phase, ...(await cli(['export', '--out', out])) }));
} else if (phase === 'check') {
  console.log(
    JSON.stringify({
      phase,
      intact: fs.readFileSync(out, 'utf8') === OLD,
      leftovers: fs.readdirSync(dir).filter((n) => n !== 'home' && n !== 'export.jsonl' && n !== '.filler'),
    }),
  );
}
