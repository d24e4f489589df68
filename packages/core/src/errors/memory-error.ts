/**
 * Every error this project throws derives from `MemoryError`. Identity is checked through global
 * symbol markers rather than `instanceof`: one marker per class, set by its constructor, so
 *
 * - a subclass is still recognised as its parent (a backend's `HonchoAPICallError extends
 *   APICallError` is still an `APICallError`, and is still retried), and
 * - two copies of `@hermes-memory/core` in one install agree (`Symbol.for` is process-wide).
 *
 * Adding a class: a marker from `marker('Name')`, the field in the constructor, and a static
 * `isInstance` that checks it with `hasMarker`.
 */
const BASE = Symbol.for('@hermes-memory/error');

function marker(name: string): symbol {
  return Symbol.for(`@hermes-memory/error.${name}`);
}

function hasMarker(error: unknown, symbol: symbol): boolean {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[symbol] === true;
}

function mark(target: object, symbol: symbol): void {
  Object.defineProperty(target, symbol, { value: true, enumerable: false });
}

/** Base of every error this project throws. */
export class MemoryError extends Error {
  readonly [BASE] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MemoryError';
  }

  static isInstance(error: unknown): error is MemoryError {
    return hasMarker(error, BASE);
  }
}

const API_CALL = marker('APICallError');

/** HTTP statuses a request may be retried on: timeout, conflict, rate limit, server errors. */
export function isRetryableStatus(status: number | undefined): boolean {
  return status === undefined || status === 408 || status === 409 || status === 429 || status >= 500;
}

export interface APICallErrorOptions {
  message: string;
  /** The request URL, with secrets in its query redacted. */
  url: string;
  /** `GET`, `POST`, … when known. */
  method?: string;
  /** The path without query (`/v3/workspaces/ws/peers`), for messages and classification. */
  path?: string;
  /** HTTP status; undefined when no response arrived (network error, timeout). */
  statusCode?: number;
  /** Default: no status (network, timeout), 408, 409, 429 and 5xx are retryable. */
  isRetryable?: boolean;
  /** The response body (redacted, truncated). */
  responseBody?: string;
  /** Response headers, lower-cased names (credentials and cookies removed). */
  responseHeaders?: Readonly<Record<string, string>>;
  /** What the server said went wrong (`detail`, `message`, `error.message`, …), when it said. */
  serverMessage?: string;
  /** The parsed error body, when it was JSON. */
  data?: unknown;
  cause?: unknown;
}

/** A call to a remote backend or model endpoint failed. */
export class APICallError extends MemoryError {
  readonly url: string;
  readonly method: string | undefined;
  readonly path: string | undefined;
  readonly statusCode: number | undefined;
  readonly isRetryable: boolean;
  readonly responseBody: string | undefined;
  readonly responseHeaders: Readonly<Record<string, string>> | undefined;
  readonly serverMessage: string | undefined;
  readonly data: unknown;

  constructor(options: APICallErrorOptions) {
    super(options.message, { cause: options.cause });
    mark(this, API_CALL);
    this.name = 'APICallError';
    this.url = options.url;
    this.method = options.method;
    this.path = options.path;
    this.statusCode = options.statusCode;
    this.responseBody = options.responseBody;
    this.responseHeaders = options.responseHeaders;
    this.serverMessage = options.serverMessage;
    this.data = options.data;
    this.isRetryable = options.isRetryable ?? isRetryableStatus(options.statusCode);
  }

  static override isInstance(error: unknown): error is APICallError {
    return hasMarker(error, API_CALL);
  }
}

const SETTINGS = marker('SettingsError');

/** A setting is missing or invalid (config.yaml, .env, constructor options). */
export class SettingsError extends MemoryError {
  readonly setting: string;

  constructor(setting: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    mark(this, SETTINGS);
    this.name = 'SettingsError';
    this.setting = setting;
  }

  static override isInstance(error: unknown): error is SettingsError {
    return hasMarker(error, SETTINGS);
  }
}

const INVALID_ARGUMENT = marker('InvalidArgumentError');

/** A caller (often a model, through a tool call) passed arguments that cannot be used. */
export class InvalidArgumentError extends MemoryError {
  readonly argument: string;

  constructor(argument: string, message: string) {
    super(message);
    mark(this, INVALID_ARGUMENT);
    this.name = 'InvalidArgumentError';
    this.argument = argument;
  }

  static override isInstance(error: unknown): error is InvalidArgumentError {
    return hasMarker(error, INVALID_ARGUMENT);
  }
}

const UNSUPPORTED = marker('UnsupportedFeatureError');

/** A provider was asked for something it does not do. */
export class UnsupportedFeatureError extends MemoryError {
  readonly provider: string;
  readonly feature: string;

  constructor(provider: string, feature: string, message?: string) {
    super(message ?? `Memory provider '${provider}' does not support ${feature}.`);
    mark(this, UNSUPPORTED);
    this.name = 'UnsupportedFeatureError';
    this.provider = provider;
    this.feature = feature;
  }

  static override isInstance(error: unknown): error is UnsupportedFeatureError {
    return hasMarker(error, UNSUPPORTED);
  }
}

const NO_SUCH_PROVIDER = marker('NoSuchProviderError');

/** No installed package provides the memory provider a config names. */
export class NoSuchProviderError extends MemoryError {
  readonly provider: string;

  constructor(provider: string, message?: string) {
    super(message ?? `Memory provider '${provider}' not found.`);
    mark(this, NO_SUCH_PROVIDER);
    this.name = 'NoSuchProviderError';
    this.provider = provider;
  }

  static override isInstance(error: unknown): error is NoSuchProviderError {
    return hasMarker(error, NO_SUCH_PROVIDER);
  }
}

const NOT_READY = marker('NotReadyError');

/**
 * A store, client or provider was used before `initialize` / `open`, or after `close` /
 * `shutdown`. One class for both, so callers (and the manager's health tracking) can tell "not
 * running" apart from a real failure.
 */
export class NotReadyError extends MemoryError {
  /** What was used ("FactStore", "Memory provider 'honcho'"). */
  readonly component: string;
  readonly state: 'not-initialized' | 'closed';

  constructor(component: string, state: 'not-initialized' | 'closed', message?: string) {
    super(message ?? `${component} is ${state === 'closed' ? 'closed' : 'not initialized'}.`);
    mark(this, NOT_READY);
    this.name = 'NotReadyError';
    this.component = component;
    this.state = state;
  }

  static override isInstance(error: unknown): error is NotReadyError {
    return hasMarker(error, NOT_READY);
  }
}

const TIMEOUT = marker('TimeoutError');

/** An operation ran past its time budget. */
export class TimeoutError extends MemoryError {
  readonly timeoutMs: number;

  constructor(message: string, timeoutMs: number) {
    super(message);
    mark(this, TIMEOUT);
    this.name = 'TimeoutError';
    this.timeoutMs = timeoutMs;
  }

  static override isInstance(error: unknown): error is TimeoutError {
    return hasMarker(error, TIMEOUT);
  }
}

const CIRCUIT_OPEN = marker('CircuitOpenError');

/** A circuit breaker refused a call: the backend failed repeatedly and is cooling down. */
export class CircuitOpenError extends MemoryError {
  /** When the breaker lets a trial call through again (clock milliseconds). */
  readonly retryAt: number;

  constructor(message: string, retryAt: number) {
    super(message);
    mark(this, CIRCUIT_OPEN);
    this.name = 'CircuitOpenError';
    this.retryAt = retryAt;
  }

  static override isInstance(error: unknown): error is CircuitOpenError {
    return hasMarker(error, CIRCUIT_OPEN);
  }
}

/** Where in a durable write a failure happened. */
export type FileWriteStage = 'mkdir' | 'open' | 'write' | 'fsync' | 'close' | 'rename' | 'fsync-dir';

const FILE_WRITE = marker('FileWriteError');

/**
 * A file could not be written completely and durably: a full disk (ENOSPC), a file-size limit
 * (EFBIG), a short write, a failed fsync or rename. Unless `committed`, the previous file is
 * unchanged. `committed` means the new content is in place but its directory entry could not be
 * synced, so it may not survive a power loss.
 */
export class FileWriteError extends MemoryError {
  readonly path: string;
  readonly stage: FileWriteStage;
  /** The errno code (`ENOSPC`, `EFBIG`, `EIO`, ...), or `SHORT_WRITE`. */
  readonly code: string;
  readonly committed: boolean;

  constructor(options: {
    path: string;
    stage: FileWriteStage;
    code: string;
    committed?: boolean;
    cause?: unknown;
  }) {
    const committed = options.committed === true;
    const why = `${describeErrno(options.code)} (${options.code})`;
    super(
      options.stage === 'mkdir'
        ? `Could not create the folder ${options.path}: ${why}.`
        : committed
          ? `Wrote ${options.path} but could not sync its folder: ${why}; the new content is in place but may not survive a power loss.`
          : `Could not write ${options.path}: ${why} while ${STAGE_TEXT[options.stage]}; the file on disk is unchanged.`,
      { cause: options.cause },
    );
    mark(this, FILE_WRITE);
    this.name = 'FileWriteError';
    this.path = options.path;
    this.stage = options.stage;
    this.code = options.code;
    this.committed = committed;
  }

  static override isInstance(error: unknown): error is FileWriteError {
    return hasMarker(error, FILE_WRITE);
  }
}

/** Why a path was refused. */
export type UnsafePathReason = 'symlink' | 'not-a-file' | 'not-a-directory';

const UNSAFE_PATH = marker('UnsafePathError');

/**
 * A path inside HERMES_HOME is a symbolic link (or not the kind of file expected) and was not
 * followed: reading through it could put any readable file into the prompt, writing through it
 * could overwrite any writable one.
 */
export class UnsafePathError extends MemoryError {
  readonly path: string;
  readonly reason: UnsafePathReason;

  constructor(path: string, reason: UnsafePathReason) {
    super(
      reason === 'symlink'
        ? `Refusing to follow ${path}: it is a symbolic link (removing the link leaves its target untouched).`
        : reason === 'not-a-file'
          ? `Refusing to use ${path}: it is not a regular file.`
          : `Refusing to use ${path}: it is not a directory.`,
    );
    mark(this, UNSAFE_PATH);
    this.name = 'UnsafePathError';
    this.path = path;
    this.reason = reason;
  }

  static override isInstance(error: unknown): error is UnsafePathError {
    return hasMarker(error, UNSAFE_PATH);
  }
}

const STAGE_TEXT: Readonly<Record<FileWriteStage, string>> = {
  mkdir: 'creating its folder',
  open: 'creating the temp file',
  write: 'writing',
  fsync: 'flushing to disk',
  close: 'closing',
  rename: 'replacing the file',
  'fsync-dir': 'syncing its folder',
};

const ERRNO_TEXT: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large for the file-size limit',
  SHORT_WRITE: 'the disk accepted only part of the data',
  EIO: 'input/output error',
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOENT: 'a parent folder does not exist',
  ENOTDIR: 'a parent is not a folder',
  EEXIST: 'the file already exists',
};

function describeErrno(code: string): string {
  return ERRNO_TEXT[code] ?? 'the operating system refused the write';
}
