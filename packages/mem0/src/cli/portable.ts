/**
 * Mem0's part of `hermes-memory export` / `import`: the configured user's memories, one record
 * each (`{memory, user_id}`), ordered by text so that export → import into an empty backend →
 * export gives the same lines (Mem0 assigns new ids on import, so ids are not part of a record).
 * Import adds each memory verbatim (`infer: false`) through the `mem0_add` path — core's write
 * scanner, fence markup escaped — and skips a memory the user already has, so importing the same
 * file twice adds nothing.
 */
import {
  type CliProgress,
  neutralizeMemoryText,
  type PortableRecord,
  type ProviderCliContext,
  type ProviderImportResult,
} from '@hermes-memory/core';
import { callTool, withMem0 } from './session';

/** The user's memories, ordered by text (then id, for identical texts). */
export async function* exportMem0Records(ctx: ProviderCliContext): AsyncIterable<PortableRecord> {
  const records = await withMem0(ctx, async (provider) => {
    const memories = await provider.listMemories(ctx.signal);
    memories.sort((a, b) => compare(a.memory, b.memory) || compare(a.id, b.id));
    return memories.map(({ memory }) => ({ memory, user_id: provider.activeUserId }));
  });
  yield* records;
}

export function validateMem0Record(record: PortableRecord): string | undefined {
  if (typeof record.memory !== 'string' || record.memory.trim() === '')
    return 'a mem0 record needs a non-empty "memory" string';
  if (record.user_id !== undefined && typeof record.user_id !== 'string')
    return 'a mem0 record\'s "user_id" must be a string';
  return undefined;
}

/** Adds what the user does not have yet, into the configured user; refusals are reported. */
export async function importMem0Records(
  ctx: ProviderCliContext,
  records: readonly PortableRecord[],
  progress: CliProgress,
): Promise<ProviderImportResult> {
  const result: ProviderImportResult = { inserted: 0, skipped: 0, refused: [] };
  await withMem0(ctx, async (provider) => {
    // Stored text is escaped fence markup (a fixed point), so compare escaped forms.
    const have = new Set(
      (await provider.listMemories(ctx.signal)).map((m) => neutralizeMemoryText(m.memory)),
    );
    for (const record of records) {
      const memory = String(record.memory).trim();
      const key = neutralizeMemoryText(memory);
      if (have.has(key)) result.skipped += 1;
      else {
        try {
          await callTool(ctx, provider, 'mem0_add', { content: memory });
          result.inserted += 1;
          have.add(key);
        } catch (error) {
          result.refused.push({ error: error instanceof Error ? error.message : String(error), record });
        }
      }
      progress.tick();
    }
  });
  progress.done();
  return result;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
