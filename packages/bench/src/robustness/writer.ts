/**
 * Writer process for the robustness runs:
 *   node --import tsx src/robustness/writer.ts <store kind> <dir> <writer id> <count>
 * Writes `count` items and prints `ack <item>` after each one is committed, then `done`.
 */
import { itemText, openSharedStore, STORE_KINDS, type StoreKind } from './stores';

async function main(): Promise<void> {
  const [kind, dir, idRaw, countRaw] = process.argv.slice(2);
  if (!STORE_KINDS.includes(kind as StoreKind) || !dir)
    throw new Error('usage: writer.ts <kind> <dir> <id> <count>');
  const id = Number(idRaw);
  const count = Number(countRaw);
  const store = await openSharedStore(kind as StoreKind, dir);
  try {
    for (let i = 0; i < count; i++) {
      const item = itemText(id, i);
      await store.write(item);
      process.stdout.write(`ack ${item}\n`);
    }
  } finally {
    await store.close();
  }
  process.stdout.write('done\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`writer: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
