import fs from 'node:fs';
import path from 'node:path';
import { SettingsError } from '../errors/memory-error';
import { writeFileAtomic } from '../fs/atomic-write';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function envFilePath(hermesHome: string): string {
  return path.join(hermesHome, '.env');
}

export function isValidEnvName(name: string): boolean {
  return NAME.test(name);
}

/**
 * Parse dotenv text: `KEY=VALUE`, optional `export ` prefix, `#` comments, single quotes
 * (literal), double quotes (with \n \t \" \\ escapes, may span lines), unquoted values with an
 * inline ` # comment` removed. Malformed lines are ignored, as python-dotenv does.
 */
export function parseEnv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('export ')) line = line.slice(7).trimStart();
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const key = line.slice(0, eq).trim();
    if (!NAME.test(key)) continue;
    let rest = line.slice(eq + 1).trimStart();
    if (rest.startsWith('"')) {
      let body = rest.slice(1);
      let close = findClosingQuote(body);
      while (close < 0 && i + 1 < lines.length) {
        body += `\n${lines[++i]!}`;
        close = findClosingQuote(body);
      }
      const raw = close < 0 ? body : body.slice(0, close);
      out[key] = raw.replace(/\\([nrt"\\$])/g, (_m, c: string) =>
        c === 'n' ? '\n' : c === 'r' ? '\r' : c === 't' ? '\t' : c,
      );
    } else if (rest.startsWith("'")) {
      const close = rest.indexOf("'", 1);
      out[key] = close < 0 ? rest.slice(1) : rest.slice(1, close);
    } else {
      const hash = rest.search(/\s#/);
      if (hash >= 0) rest = rest.slice(0, hash);
      out[key] = rest.trim();
    }
  }
  return out;
}

function findClosingQuote(s: string): number {
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === '"') return i;
  }
  return -1;
}

/** Read `<hermesHome>/.env`; a missing file is an empty map. */
export function loadEnvFile(hermesHome: string): Record<string, string> {
  const file = envFilePath(hermesHome);
  try {
    return parseEnv(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new SettingsError(file, `Cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * The environment a provider sees: the process environment overlaid with `<hermesHome>/.env`.
 * The file wins, as in the reference (it loads the profile's .env with override), so a stale shell
 * export cannot shadow what `hermes-memory setup` wrote. Returns a new object; `env` is untouched.
 */
export function resolveEnv(
  hermesHome: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Record<string, string | undefined> {
  return { ...env, ...loadEnvFile(hermesHome) };
}

function formatValue(value: string): string {
  if (/^[A-Za-z0-9_./:@+,-]*$/.test(value)) return value;
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\$/g, '\\$')}"`;
}

export interface EnvWriteResult {
  written: string[];
  /** Names refused because they are not valid environment variable names. */
  skipped: string[];
}

/**
 * Set variables in `<hermesHome>/.env`: existing assignments are replaced where they stand,
 * new ones appended, comments and other lines kept. Invalid names are skipped and reported, never
 * written. `undefined` removes a variable. The file is written atomically with mode 0600.
 */
export function writeEnvValues(
  hermesHome: string,
  values: Readonly<Record<string, string | undefined>>,
): EnvWriteResult {
  const file = envFilePath(hermesHome);
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new SettingsError(file, `Cannot read ${file}: ${(error as Error).message}`, { cause: error });
    }
  }
  const result: EnvWriteResult = { written: [], skipped: [] };
  const pending = new Map<string, string | undefined>();
  for (const [name, value] of Object.entries(values)) {
    if (!NAME.test(name)) result.skipped.push(name);
    else pending.set(name, value);
  }
  const lines = text === '' ? [] : text.replace(/\r?\n$/, '').split(/\r?\n/);
  const kept: string[] = [];
  const done = new Set<string>();
  for (const line of lines) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line);
    const name = m?.[1];
    if (name !== undefined && pending.has(name)) {
      if (done.has(name)) continue; // a duplicate assignment would shadow the new value
      done.add(name);
      const value = pending.get(name);
      if (value !== undefined) kept.push(`${name}=${formatValue(value)}`);
      continue;
    }
    kept.push(line);
  }
  for (const [name, value] of pending) {
    if (!done.has(name) && value !== undefined) kept.push(`${name}=${formatValue(value)}`);
  }
  for (const name of pending.keys()) result.written.push(name);
  writeFileAtomic(file, kept.length > 0 ? `${kept.join('\n')}\n` : '');
  return result;
}
