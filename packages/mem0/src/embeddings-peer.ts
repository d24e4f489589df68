/**
 * The optional peer `@hermes-memory/embeddings` (the bundled offline Model2Vec model, OSS mode's
 * default embedder), imported from this package, which declares it: pnpm lets it resolve only here.
 */
const EMBEDDINGS = '@hermes-memory/embeddings';

export const importEmbeddings = (): Promise<unknown> => import(/* @vite-ignore */ EMBEDDINGS);
