import { redactSecrets } from './redact';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** The logging surface every provider and the manager write to. Silent unless the host plugs one in. */
export interface Logger {
  debug(message: string, meta?: Record<string, unknown>): void;
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
  error(message: string, meta?: Record<string, unknown>): void;
}

const noop = (): void => {};

export const silentLogger: Logger = Object.freeze({ debug: noop, info: noop, warn: noop, error: noop });

const LEVEL_ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface LogRecord {
  level: LogLevel;
  message: string;
  meta?: Record<string, unknown>;
}

/**
 * A logger that redacts secrets from every message and metadata value before they reach the sink,
 * and drops records below `level`. The default sink writes one line per record to stderr.
 */
export function createLogger(
  options: { level?: LogLevel; sink?: (record: LogRecord) => void; name?: string } = {},
): Logger {
  const min = LEVEL_ORDER[options.level ?? 'info'];
  const prefix = options.name ? `[${options.name}] ` : '';
  const sink =
    options.sink ??
    ((record: LogRecord) => {
      const meta =
        record.meta && Object.keys(record.meta).length > 0 ? ` ${JSON.stringify(record.meta)}` : '';
      process.stderr.write(`${record.level.toUpperCase()} ${prefix}${record.message}${meta}\n`);
    });
  const emit = (level: LogLevel) => (message: string, meta?: Record<string, unknown>) => {
    if (LEVEL_ORDER[level] < min) return;
    const record: LogRecord = { level, message: redactSecrets(message) };
    if (meta) record.meta = redactMeta(meta);
    sink(record);
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

/** A logger that keeps records in memory; tests assert on `records`. */
export function createRecordingLogger(): Logger & { records: LogRecord[] } {
  const records: LogRecord[] = [];
  const logger = createLogger({ level: 'debug', sink: (r) => records.push(r) });
  return Object.assign(logger, { records });
}

function redactMeta(meta: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(meta)) {
    if (/(api[_-]?key|token|secret|password|authorization|credential)/i.test(key)) {
      out[key] = '[redacted]';
    } else if (typeof value === 'string') {
      out[key] = redactSecrets(value);
    } else if (value instanceof Error) {
      out[key] = redactSecrets(value.message);
    } else {
      out[key] = value;
    }
  }
  return out;
}
