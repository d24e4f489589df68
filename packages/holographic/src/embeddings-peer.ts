/**
 * The optional peer `@hermes-memory/embeddings`, imported from this package (which declares it):
 * core's `loadDefaultEmbedder` needs the import written here, where pnpm lets it resolve. Shared by
 * the provider and the CLI module's `embed` command.
 */
const EMBEDDINGS = '@hermes-memory/embeddings';

export const importEmbeddings = (): Promise<unknown> => import(/* @vite-ignore */ EMBEDDINGS);
