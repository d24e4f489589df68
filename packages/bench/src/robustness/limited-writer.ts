/**
 * Child process for the full-disk and file-size-limit runs (`limited-disk.ts`), started three times
 * by testkit's `runUnderWriteLimit`:
 *   node --import tsx src/robustness/limited-writer.ts <setup|act|check> <target>
 * `setup` writes the state to protect (no limit), `act` makes one write under the limit and reports
 * what the API answered, `check` (no limit) reports what is on disk. Each prints one JSON line.
 * The folder is `HM_LIMIT_DIR` (on the tmpfs for a full disk).
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadPackage } from '../packages';
import { LIMITED_TARGETS, type LimitedTarget } from './limited-targets';

const home = () => process.env.HM_LIMIT_DIR ?? '';
const entry = (i: number) => `entry ${i}: ${'the user prefers small, reviewed changes; '.repeat(7)}`.trim();
const ORIGINAL = Array.from({ length: 6 }, (_, i) => entry(i));
const BIG = 'x'.repeat(3000);
const BATCH = 200;

type Api = Record<string, (...args: never[]) => unknown>;
type Ctor = new (options: Record<string, unknown>) => Record<string, (...args: never[]) => unknown>;

async function core(): Promise<Api> {
  return (await loadPackage('@hermes-memory/core')) as Api;
}
async function builtinCtor(name: string): Promise<Ctor> {
  return (await loadPackage('@hermes-memory/builtin'))[name] as Ctor;
}
async function factStore(): Promise<Ctor> {
  return (await loadPackage('@hermes-memory/holographic'))['FactStore'] as Ctor;
}

/** What the API said: success, or the error it reported (thrown or in a `{success:false}` result). */
interface Outcome {
  success: boolean;
  error?: string;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function attempt(fn: () => unknown): Promise<Outcome> {
  try {
    const value = await fn();
    if (value && typeof value === 'object' && 'success' in value) {
      const r = value as { success: boolean; error?: unknown };
      return r.success ? { success: true } : { success: false, error: String(r.error) };
    }
    return { success: true };
  } catch (error) {
    return { success: false, error: errorText(error) };
  }
}

/**
 * What is on disk now: `old` (the setup state), `new` (exactly what `act` writes, complete), or
 * `other` (anything else: truncated, torn, partly applied).
 */
async function classify(target: LimitedTarget): Promise<{ state: 'old' | 'new' | 'other'; detail: string }> {
  const dir = home();
  const api = await core();
  const read = (f: string) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '');
  const verdict = (detail: string, old: boolean, fresh: boolean) =>
    ({ state: old ? 'old' : fresh ? 'new' : 'other', detail }) as const;
  switch (target) {
    case 'memory-add':
    case 'memory-replace': {
      const entries = (await loadPackage('@hermes-memory/builtin'))['parseEntries'] as (
        t: string,
      ) => string[];
      const now = JSON.stringify(entries(read(path.join(dir, 'memories', 'MEMORY.md'))));
      const next =
        target === 'memory-add'
          ? [...ORIGINAL, `new entry ${BIG}`]
          : ORIGINAL.map((e, i) => (i === 2 ? `entry 2 ${BIG}` : e));
      return verdict(
        `${now.length} chars of entries`,
        now === JSON.stringify(ORIGINAL),
        now === JSON.stringify(next),
      );
    }
    case 'config-yaml': {
      const memory = (
        api.loadHermesConfig!(...([dir] as never[])) as { raw: { memory?: Record<string, unknown> } }
      ).raw.memory;
      return verdict(
        `note: ${String(memory?.note ?? '').length} chars`,
        memory?.provider === 'holographic' && memory.note === undefined,
        memory?.provider === 'holographic' && memory.note === BIG,
      );
    }
    case 'env-file': {
      const key = (api.loadEnvFile!(...([dir] as never[])) as Record<string, string>).OPENAI_API_KEY ?? '';
      return verdict(`key: ${key.length} chars`, key === 'sk-old', key === BIG);
    }
    case 'spill-file': {
      const spill = path.join(dir, 'cache', 'memory-spill');
      const sizes = fs.existsSync(spill)
        ? fs.readdirSync(spill).map((n) => fs.statSync(path.join(spill, n)).size)
        : [];
      return verdict(
        `files: ${sizes.join(', ') || 'none'}`,
        sizes.length === 0,
        sizes.length === 1 && sizes[0] === BIG.length * 7,
      );
    }
    case 'session-db': {
      const Store = await builtinCtor('SessionStore');
      const s = new Store({ hermesHome: dir, readonly: true });
      try {
        const n = Number(s.messageCount!());
        return verdict(`${n} messages`, n === 0, n === BATCH);
      } finally {
        s.close!();
      }
    }
    case 'facts-db': {
      const Store = await factStore();
      const s = new Store({ dbPath: path.join(dir, 'memory_store.db') });
      try {
        const n = Number(s.count!());
        return verdict(`${n} facts`, n === 1, n === 1 + BATCH);
      } finally {
        s.close!();
      }
    }
  }
}

async function setup(target: LimitedTarget): Promise<void> {
  const dir = home();
  const api = await core();
  if (target === 'memory-add' || target === 'memory-replace') {
    const Store = await builtinCtor('MemoryStore');
    const store = new Store({ hermesHome: dir, memoryCharLimit: 1_000_000 });
    store.load!();
    for (const e of ORIGINAL) await (store.add as (t: string, c: string) => Promise<unknown>)('memory', e);
  } else if (target === 'config-yaml') {
    api.saveConfigValues!(...([dir, { memory: { provider: 'holographic' } }] as never[]));
  } else if (target === 'env-file') {
    api.writeEnvValues!(...([dir, { OPENAI_API_KEY: 'sk-old' }] as never[]));
  } else if (target === 'session-db') {
    const Store = await builtinCtor('SessionStore');
    const s = new Store({ hermesHome: dir });
    (s.createSession as (id: string, o: object) => void)('s1', { source: 'cli' });
    s.close!();
  } else if (target === 'facts-db') {
    const Store = await factStore();
    const s = new Store({ dbPath: path.join(dir, 'memory_store.db') });
    (s.add as (c: string) => number)('the first fact');
    s.close!();
  }
}

async function act(target: LimitedTarget): Promise<Outcome> {
  const dir = home();
  const api = await core();
  switch (target) {
    case 'memory-add':
    case 'memory-replace': {
      const Store = await builtinCtor('MemoryStore');
      const store = new Store({ hermesHome: dir, memoryCharLimit: 1_000_000 });
      store.load!();
      return target === 'memory-add'
        ? attempt(() => (store.add as (t: string, c: string) => unknown)('memory', `new entry ${BIG}`))
        : attempt(() =>
            (store.replace as (t: string, o: string, c: string) => unknown)(
              'memory',
              'entry 2:',
              `entry 2 ${BIG}`,
            ),
          );
    }
    case 'config-yaml':
      return attempt(() => api.saveConfigValues!(...([dir, { memory: { note: BIG } }] as never[])));
    case 'env-file':
      return attempt(() => api.writeEnvValues!(...([dir, { OPENAI_API_KEY: BIG }] as never[])));
    case 'spill-file': {
      // spillText never throws: a failed spill answers without `file` (and says why in `error`).
      const r = api.spillText!(
        ...([BIG.repeat(7), { hermesHome: dir, limit: 1000, label: 'ext' }] as never[]),
      ) as { file?: string; error?: string };
      return r.file ? { success: true } : { success: false, error: r.error ?? 'no file' };
    }
    case 'session-db': {
      const Store = await builtinCtor('SessionStore');
      const s = new Store({ hermesHome: dir });
      try {
        const messages = Array.from({ length: BATCH }, (_, i) => ({
          role: 'user',
          content: `message ${i} ${BIG}`,
        }));
        return await attempt(() =>
          (s.appendMessages as (id: string, m: object[]) => unknown)('s1', messages),
        );
      } finally {
        s.close!();
      }
    }
    case 'facts-db': {
      const Store = await factStore();
      const s = new Store({ dbPath: path.join(dir, 'memory_store.db') });
      try {
        const items = Array.from({ length: BATCH }, (_, i) => ({
          content: `fact ${i} ${BIG.slice(0, 400)}`,
        }));
        return await attempt(() => (s.addMany as (items: object[]) => unknown)(items));
      } finally {
        s.close!();
      }
    }
  }
}

async function main(): Promise<void> {
  const [phase, target] = process.argv.slice(2) as [string, LimitedTarget];
  if (!LIMITED_TARGETS.includes(target)) throw new Error(`unknown target ${target}`);
  if (phase === 'setup') {
    await setup(target);
    process.stdout.write(`${JSON.stringify({ phase, ...(await classify(target)) })}\n`);
  } else if (phase === 'act') {
    process.stdout.write(`${JSON.stringify({ phase, ...(await act(target)) })}\n`);
  } else {
    const leftovers = fs
      .readdirSync(home(), { recursive: true })
      .map(String)
      .filter((n) => n.endsWith('.tmp'));
    process.stdout.write(`${JSON.stringify({ phase, ...(await classify(target)), leftovers })}\n`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`limited-writer: ${errorText(err)}\n`);
  process.exitCode = 1;
});
