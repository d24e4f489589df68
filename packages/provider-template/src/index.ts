/**
 * @hermes-memory/provider-template — the shape most memory backends take, to fork: a remote
 * memory service reached over HTTP, with a search tool and a write tool, background writes and
 * prefetched recall. Its fake backend is `@hermes-memory/provider-template/testing`.
 */
import type { ProviderFactoryContext } from '@hermes-memory/core';
import { TemplateProvider } from './template-provider';
import type { TemplateProviderSettings } from './template-settings';

export { TemplateProvider, type TemplateProviderContext, formatRecall } from './template-provider';
export {
  TEMPLATE_DEFAULTS,
  type ResolvedTemplateSettings,
  type TemplateProviderSettings,
  resolveTemplateSettings,
} from './template-settings';
export {
  TemplateClient,
  type NewTemplateMemory,
  type TemplateClientOptions,
  type TemplateMemory,
} from './client';

/**
 * Create the provider. Settings are optional; the factory context (what `memory.provider:
 * template` hands the factory: env with `<home>/.env`, the `memory.template` block) fills in
 * the rest, so `isAvailable()` sees a key kept in `.env` without reading any file.
 */
export function createTemplateProvider(
  settings: TemplateProviderSettings = {},
  context?: Pick<ProviderFactoryContext, 'env' | 'providerConfig'>,
): TemplateProvider {
  return new TemplateProvider(settings, context);
}

/**
 * The factory plugin discovery calls: any installed package whose package.json declares
 * `"hermesMemory": {"provider": "<name>"}` and exports `createProvider` can be selected with
 * `memory.provider: <name>` in config.yaml.
 */
export const createProvider = createTemplateProvider;

// package.json's version, put in by the build (tsup.preset.ts); running from source reports 0.0.0-dev.
declare const __PACKAGE_VERSION__: string | undefined;
export const VERSION: string = typeof __PACKAGE_VERSION__ === 'string' ? __PACKAGE_VERSION__ : '0.0.0-dev';
