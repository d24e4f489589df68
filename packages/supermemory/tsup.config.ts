import { defineConfig } from 'tsup';
import { preset } from '../../tsup.preset';

// Three entries: the provider; `./testing` (the fake: importing the provider never loads it or
// testkit); `./cli` (the commands the hermes-memory CLI loads through its seam).
export default defineConfig(
  preset({ index: 'src/index.ts', testing: 'src/testing/index.ts', cli: 'src/cli/index.ts' }),
);
