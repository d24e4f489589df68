import fs from 'node:fs';
import path from 'node:path';
import { SettingsError } from '../errors/memory-error';
import { writeFileAtomic } from '../fs/atomic-write';
import type { Logger } from '../logging/logger';

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

export interface EnvWriteOptions {
  /**
   * Where a failure to set mode 0600 goes (a filesystem without permissions); the write then goes
   * on, as the reference's does. Without it such a failure fails the write.
   */
  logger?: Pick<Logger, 'warn'>;
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const ASSIGNMENT = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/;

/**
 * Set variables in `<hermesHome>/.env`: existing assignments are replaced where they stand,
 * new ones appended, comments and other lines kept byte for byte (a line in another encoding, or
 * with bytes that are not UTF-8, is carried over unchanged; a leading byte-order mark is dropped
 * so the first name still matches). Invalid names are skipped and reported, never written.
 * `undefined` removes a variable; NUL characters are dropped from values (no environment variable
 * can hold one). The file is written atomically with mode 0600.
 */
export function writeEnvValues(
  hermesHome: string,
  values: Readonly<Record<string, string | undefined>>,
  options: EnvWriteOptions = {},
): EnvWriteResult {
  const file = envFilePath(hermesHome);
  let bytes = Buffer.alloc(0);
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new SettingsError(file, `Cannot read ${file}: ${(error as Error).message}`, { cause: error });
    }
  }
  if (bytes.subarray(0, 3).equals(BOM)) bytes = bytes.subarray(3);
  const result: EnvWriteResult = { written: [], skipped: [] };
  const pending = new Map<string, string | undefined>();
  for (const [name, value] of Object.entries(values)) {
    if (!NAME.test(name)) result.skipped.push(name);
    else pending.set(name, value?.replace(/\0/g, ''));
  }
  const assignment = (name: string, value: string) => Buffer.from(`${name}=${formatValue(value)}`, 'utf8');
  const kept: Buffer[] = [];
  const done = new Set<string>();
  for (const line of splitLines(bytes)) {
    // Names are ASCII: latin1 reads them whatever the rest of the line holds.
    const name = ASSIGNMENT.exec(line.toString('latin1'))?.[1];
    if (name !== undefined && pending.has(name)) {
      if (done.has(name)) continue; // a duplicate assignment would shadow the new value
      done.add(name);
      const value = pending.get(name);
      if (value !== undefined) kept.push(assignment(name, value));
      continue;
    }
    kept.push(line);
  }
  for (const [name, value] of pending) {
    if (!done.has(name) && value !== undefined) kept.push(assignment(name, value));
  }
  for (const name of pending.keys()) result.written.push(name);
  const lf = Buffer.from('\n');
  const body = kept.length > 0 ? Buffer.concat(kept.flatMap((line) => [line, lf])) : Buffer.alloc(0);
  const logger = options.logger;
  writeFileAtomic(
    file,
    body,
    logger
      ? {
          onModeError: (error) =>
            logger.warn(`Could not restrict ${file} to mode 0600: ${(error as Error).message}`),
        }
      : {},
  );
  return result;
}

/** Lines of a file as bytes, without their LF or CRLF ending; no trailing empty line. */
function splitLines(bytes: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    if (end < 0) end = bytes.length;
    const stop = end > start && bytes[end - 1] === 0x0d ? end - 1 : end;
    lines.push(bytes.subarray(start, stop));
    start = end + 1;
  }
  return lines;
}
