import { defineConfig } from 'tsup';
import { preset } from '../../tsup.preset';

// `./testing` and `./cli` are entries of their own: importing the provider never loads the fake
// servers, testkit or the command line.
export default defineConfig(
  preset({ index: 'src/index.ts', testing: 'src/testing/index.ts', cli: 'src/cli/index.ts' }),
);
