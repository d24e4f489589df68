import { defineConfig } from 'vitest/config';

// Tests spawn the built binary many times; on a busy 2-core machine one spawn can take ~2 s (the
// longest test, ~15 spawns, took 19 s alone and over 30 s in a full run at load 25).
export default defineConfig({ test: { testTimeout: 90_000 } });
