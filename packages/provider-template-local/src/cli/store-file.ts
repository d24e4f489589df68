import path from 'node:path';
import { type ProviderCliContext, silentLogger } from '@hermes-memory/core';
import { resolveTemplateSettings } from '../template-provider-settings';
import { type LoadReport, JsonlStore } from '../template-store';

/** The memory file the provider would open in this home: `memory.template.file_name` or TEMPLATE_FILE. */
export function storePath(ctx: ProviderCliContext): string {
  return path.join(ctx.home, resolveTemplateSettings({}, ctx.providerConfig, ctx.env).fileName);
}

/**
 * The store, replayed. Read-only (`repair: false`) unless a command writes: the CLI may run beside
 * an agent that holds the same file, and only an append-only writer may touch it.
 */
export async function openStore(
  ctx: ProviderCliContext,
  options: { repair: boolean } = { repair: false },
): Promise<{ store: JsonlStore; report: LoadReport }> {
  const store = new JsonlStore(storePath(ctx), silentLogger);
  const report = await store.load(options);
  return { store, report };
}
