import { defineConfig } from 'vitest/config';

// These tests run `changeset version`, import every built package and compile every README block:
// seconds each on an idle machine, much more on a busy 2-core one.
export default defineConfig({ test: { testTimeout: 120_000, hookTimeout: 300_000 } });
