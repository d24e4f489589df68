import { type LogLevel, type LogRecord, type Logger, createRecordingLogger } from '@hermes-memory/core';

export interface CollectedLogs {
  /** Pass this wherever a `Logger` is expected (e.g. `InitContext.logger`). */
  readonly logger: Logger;
  /** Every record, oldest first (already secret-redacted by core's logger). */
  readonly records: readonly LogRecord[];
  /** Messages, optionally only those at one level. */
  messages(level?: LogLevel): string[];
  /** True when any message or metadata value contains `needle` (string or pattern). */
  contains(needle: string | RegExp): boolean;
  /** Forget what was recorded so far. */
  clear(): void;
}

/**
 * A recording logger for assertions: "this warning was logged", "the API key never reached a log".
 * Records pass through core's redaction, exactly as they would in production.
 */
export function collectLogs(): CollectedLogs {
  const recording = createRecordingLogger();
  const text = (record: LogRecord): string =>
    record.meta ? `${record.message} ${safeStringify(record.meta)}` : record.message;
  return {
    logger: recording,
    get records() {
      return recording.records;
    },
    messages(level) {
      return recording.records.filter((r) => level === undefined || r.level === level).map((r) => r.message);
    },
    contains(needle) {
      return recording.records.some((r) =>
        typeof needle === 'string' ? text(r).includes(needle) : needle.test(text(r)),
      );
    },
    clear() {
      recording.records.length = 0;
    },
  };
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
