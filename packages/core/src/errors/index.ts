export {
  APICallError,
  type APICallErrorOptions,
  CircuitOpenError,
  InvalidArgumentError,
  isRetryableStatus,
  MemoryError,
  NoSuchProviderError,
  NotReadyError,
  SettingsError,
  TimeoutError,
  UnsupportedFeatureError,
} from './memory-error';
