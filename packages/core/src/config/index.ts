export { writeFileAtomic } from './atomic-write';
export {
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
  type MemoryConfig,
  memoryConfigFrom,
  saveConfigValues,
} from './hermes-config';
export { expandHome, resolveHermesHome } from './home';
