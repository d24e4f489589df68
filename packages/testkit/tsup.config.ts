import path from 'node:path';
import { defineConfig } from 'tsup';
import { preset } from '../../tsup.preset';

// vitest is ESM-only and cannot be require()d: the CommonJS build swaps ./vitest-runner for a shim
// that explains that describeMemoryProvider needs an ES module test file (everything else works
// from CommonJS). tsup reports format "esm" to plugins for both builds; the output extension tells
// them apart.
const vitestCjsShim = {
  name: 'vitest-cjs-shim',
  setup(build: {
    initialOptions: { outExtension?: Record<string, string> };
    onResolve: (options: { filter: RegExp }, callback: () => { path: string }) => void;
  }) {
    if (build.initialOptions.outExtension?.['.js'] !== '.cjs') return;
    build.onResolve({ filter: /\/vitest-runner$/ }, () => ({
      path: path.resolve('src/conformance/vitest-cjs-shim.ts'),
    }));
  },
};

export default defineConfig(
  preset(
    {
      index: 'src/index.ts',
      vitest: 'src/vitest.ts',
      http: 'src/http/index.ts',
      'fake-openai': 'src/fake-openai/index.ts',
    },
    { esbuildPlugins: [vitestCjsShim] },
  ),
);
