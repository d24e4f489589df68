import { defineConfig } from 'tsup';
import { preset } from '../../tsup.preset';

// Code splitting: each command is its own chunk, imported only when it runs (fast `--help`/`status`).
export default defineConfig(preset({ index: 'src/index.ts', bin: 'src/bin.ts' }, { splitting: true }));
