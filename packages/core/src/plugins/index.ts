export {
  type DiscoveryOptions,
  discoverProviderPackages,
  listMemoryProviders,
  type ProviderPackage,
} from './discovery';
export { type LoadProviderOptions, loadMemoryProvider, pickProviderFactory } from './load';
