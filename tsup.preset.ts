import type { Options } from 'tsup';

/**
 * The one build preset every published package uses: ESM + CommonJS, type declarations for both,
 * source maps, Node 20 target. Packages pass only their entry points.
 */
export function preset(entry: Record<string, string> = { index: 'src/index.ts' }, extra: Options = {}): Options {
  return {
    entry,
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
    platform: 'node',
    splitting: false,
    treeshake: true,
    shims: true,
    ...extra,
  };
}
