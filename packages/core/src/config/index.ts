export {
  type EnvWriteOptions,
  type EnvWriteResult,
  envFilePath,
  isValidEnvName,
  loadEnvFile,
  parseEnv,
  resolveEnv,
  writeEnvValues,
} from './env-file';
export {
  configPath,
  getConfigValue,
  type HermesConfig,
  loadHermesConfig,
  MEMORY_CONFIG_DEFAULTS,
  MEMORY_CONFIG_FIELDS,
  type MemoryConfig,
  type SecondaryProviderConfig,
  memoryConfigFrom,
  saveConfigValues,
} from './hermes-config';
export { expandHome, resolveHermesHome } from './home';
export {
  checkConfigValue,
  configBoolean,
  type ConfigValueProblem,
  describeConfigConflict,
  type ProviderConfigConflict,
  type ProviderConfigRead,
  readProviderConfig,
  validateConfigValues,
} from './provider-config';
export {
  booleanSetting,
  type Env,
  hasApiKey,
  type LoadApiKeyOptions,
  type LoadSettingOptions,
  loadApiKey,
  loadOptionalSetting,
  loadSetting,
  parseBoolean,
} from './settings';
export {
  type JsonConfig,
  type JsonConfigRead,
  mergeJsonConfig,
  readJsonConfig,
  writeJsonConfig,
} from './json-config';
