export {
  APICallError,
  InvalidArgumentError,
  MemoryError,
  NoSuchProviderError,
  SettingsError,
  UnsupportedFeatureError,
} from './memory-error';
