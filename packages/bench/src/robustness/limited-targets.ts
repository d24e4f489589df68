/**
 * The writers the full-disk and file-size-limit runs exercise. Apart from `limited-writer.ts`
 * because that file is a child-process entry point that runs on import.
 */
export const LIMITED_TARGETS = [
  'memory-add',
  'memory-replace',
  'config-yaml',
  'env-file',
  'spill-file',
  'session-db',
  'facts-db',
] as const;
export type LimitedTarget = (typeof LIMITED_TARGETS)[number];
