import { defineConfig } from 'tsup';
import { preset } from '../../tsup.preset';

// `./testing` is its own entry: importing the provider never loads the fake server or testkit.
export default defineConfig(preset({ index: 'src/index.ts', testing: 'src/testing/index.ts' }));
