import { defineConfig } from 'tsup';
import { preset } from '../../tsup.preset';

// `./testing` and `./cli` are entries of their own: importing the provider never loads the fake
// server or testkit, and the hermes-memory CLI loads only the small `./cli` module (decision 0603).
export default defineConfig(
  preset({ index: 'src/index.ts', testing: 'src/testing/index.ts', cli: 'src/cli/index.ts' }),
);
