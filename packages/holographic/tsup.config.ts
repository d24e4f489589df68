import { defineConfig } from 'tsup';
import { preset } from '../../tsup.preset';

// The encode worker is an entry of its own (a file loaded by `new Worker`, no types); `cli` is the
// `./cli` subpath the hermes-memory CLI loads through the provider seam.
export default defineConfig(
  preset(
    { index: 'src/index.ts', cli: 'src/cli/index.ts', 'encode-worker': 'src/encode-worker.ts' },
    { dts: { entry: { index: 'src/index.ts', cli: 'src/cli/index.ts' } } },
  ),
);
