import { defineConfig } from 'tsup';
import { preset } from '../../tsup.preset';

// Three entries: the provider, its fake (`./testing`), and `./cli` (loaded by the hermes-memory CLI through its seam).
export default defineConfig(
  preset({ index: 'src/index.ts', testing: 'src/testing/index.ts', cli: 'src/cli/index.ts' }),
);
