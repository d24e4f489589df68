import { defineConfig } from 'tsup';
import { preset } from '../../tsup.preset';

// `./cli` is an entry of its own: the hermes-memory CLI loads only that small module (decision 0603).
export default defineConfig(preset({ index: 'src/index.ts', cli: 'src/cli/index.ts' }));
