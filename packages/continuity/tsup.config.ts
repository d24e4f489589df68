import { defineConfig } from 'tsup';
import { preset } from '../../tsup.preset';

// Two entries: the provider, and `./cli` (the commands the hermes-memory CLI loads through its seam).
export default defineConfig(preset({ index: 'src/index.ts', cli: 'src/cli/index.ts' }));
