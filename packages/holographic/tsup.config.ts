import { defineConfig } from 'tsup';
import { preset } from '../../tsup.preset';

// The encode worker is a second entry (a file of its own, loaded by `new Worker`); it has no types.
export default defineConfig(
  preset(
    { index: 'src/index.ts', 'encode-worker': 'src/encode-worker.ts' },
    { dts: { entry: { index: 'src/index.ts' } } },
  ),
);
