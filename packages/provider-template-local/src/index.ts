/**
 * @hermes-memory/provider-template-local — a small but real memory provider to fork: a JSON-lines store
 * in HERMES_HOME with keyword search, one search tool and one write tool.
 */
import { TemplateProvider } from './template-provider';
import type { TemplateProviderSettings } from './template-provider-settings';

export { TemplateProvider } from './template-provider';
export type { TemplateProviderSettings } from './template-provider-settings';
export { keywords, searchEntries, type SearchHit } from './template-search';
export { JsonlStore, type EntryKind, type LoadReport, type StoredEntry } from './template-store';

/** Create the provider. Settings are optional; config.yaml and the environment fill in the rest. */
export function createTemplateProvider(settings: TemplateProviderSettings = {}): TemplateProvider {
  return new TemplateProvider(settings);
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
