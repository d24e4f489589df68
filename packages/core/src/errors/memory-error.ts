const BRAND = Symbol.for('@hermes-memory/error');

/**
 * Base of every error this project throws. Identity is checked through a global symbol brand rather
 * than `instanceof`, so it still works when two copies of `@hermes-memory/core` are installed.
 */
export class MemoryError extends Error {
  readonly [BRAND] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MemoryError';
  }

  static isInstance(error: unknown): error is MemoryError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[BRAND] === true;
  }
}

/** A call to a remote backend or model endpoint failed. */
export class APICallError extends MemoryError {
  readonly url: string;
  readonly statusCode: number | undefined;
  readonly isRetryable: boolean;
  readonly responseBody: string | undefined;

  constructor(options: {
    message: string;
    url: string;
    statusCode?: number;
    isRetryable?: boolean;
    responseBody?: string;
    cause?: unknown;
  }) {
    super(options.message, { cause: options.cause });
    this.name = 'APICallError';
    this.url = options.url;
    this.statusCode = options.statusCode;
    this.responseBody = options.responseBody;
    this.isRetryable =
      options.isRetryable ??
      (options.statusCode === undefined ||
        options.statusCode === 408 ||
        options.statusCode === 409 ||
        options.statusCode === 429 ||
        options.statusCode >= 500);
  }

  static override isInstance(error: unknown): error is APICallError {
    return MemoryError.isInstance(error) && error.name === 'APICallError';
  }
}

/** A setting is missing or invalid (config.yaml, .env, constructor options). */
export class SettingsError extends MemoryError {
  readonly setting: string;

  constructor(setting: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SettingsError';
    this.setting = setting;
  }

  static override isInstance(error: unknown): error is SettingsError {
    return MemoryError.isInstance(error) && error.name === 'SettingsError';
  }
}

/** A caller (often a model, through a tool call) passed arguments that cannot be used. */
export class InvalidArgumentError extends MemoryError {
  readonly argument: string;

  constructor(argument: string, message: string) {
    super(message);
    this.name = 'InvalidArgumentError';
    this.argument = argument;
  }

  static override isInstance(error: unknown): error is InvalidArgumentError {
    return MemoryError.isInstance(error) && error.name === 'InvalidArgumentError';
  }
}

/** A provider was asked for something it does not do. */
export class UnsupportedFeatureError extends MemoryError {
  readonly provider: string;
  readonly feature: string;

  constructor(provider: string, feature: string, message?: string) {
    super(message ?? `Memory provider '${provider}' does not support ${feature}.`);
    this.name = 'UnsupportedFeatureError';
    this.provider = provider;
    this.feature = feature;
  }

  static override isInstance(error: unknown): error is UnsupportedFeatureError {
    return MemoryError.isInstance(error) && error.name === 'UnsupportedFeatureError';
  }
}

/** No installed package provides the memory provider a config names. */
export class NoSuchProviderError extends MemoryError {
  readonly provider: string;

  constructor(provider: string, message?: string) {
    super(message ?? `Memory provider '${provider}' not found.`);
    this.name = 'NoSuchProviderError';
    this.provider = provider;
  }

  static override isInstance(error: unknown): error is NoSuchProviderError {
    return MemoryError.isInstance(error) && error.name === 'NoSuchProviderError';
  }
}
