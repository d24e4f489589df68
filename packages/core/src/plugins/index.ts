export {
  type DiscoveryOptions,
  type DiscoverySearch,
  type ProviderManifest,
  type ProviderPackage,
  describeSearch,
  discoverProviderPackages,
  explainDiscovery,
  listMemoryProviders,
  projectPluginsEnabled,
  readManifest,
} from './discovery';
export {
  type LoadProviderOptions,
  type ProviderLoadResult,
  loadMemoryProvider,
  pickProviderFactory,
  resolveMemoryProvider,
} from './load';
