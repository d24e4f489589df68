export {
  type DiscoveryOptions,
  discoverProviderPackages,
  listMemoryProviders,
  type ProviderPackage,
  projectPluginsEnabled,
} from './discovery';
export {
  type LoadProviderOptions,
  type ProviderLoadResult,
  loadMemoryProvider,
  pickProviderFactory,
  resolveMemoryProvider,
} from './load';
