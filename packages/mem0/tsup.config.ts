import { defineConfig } from 'tsup';
import { preset } from '../../tsup.preset';

export default defineConfig(
  preset({ index: 'src/index.ts', testing: 'src/testing/index.ts', cli: 'src/cli/index.ts' }),
);
