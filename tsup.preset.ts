import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Options } from 'tsup';

/** The version of the package being built (tsup runs in the package's folder). */
function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(path.join(process.cwd(), 'package.json'), 'utf8')) as {
    version?: unknown;
  };
  if (typeof manifest.version !== 'string') throw new Error(`no version in ${process.cwd()}/package.json`);
  return manifest.version;
}

/**
 * The one build preset every published package uses: ESM + CommonJS, type declarations for both,
 * source maps, Node 20 target. Packages pass only their entry points.
 *
 * `__PACKAGE_VERSION__` is replaced by the package's own version from package.json, so a release
 * (changesets bumps package.json) never needs a second, hand-kept version string in the source.
 */
export function preset(
  entry: Record<string, string> = { index: 'src/index.ts' },
  extra: Options = {},
): Options {
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
    define: { __PACKAGE_VERSION__: JSON.stringify(packageVersion()), ...extra.define },
  };
}
