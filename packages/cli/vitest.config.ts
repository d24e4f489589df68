import { defineConfig } from 'vitest/config';

// Tests spawn the built binary many times; on a busy 2-core machine one spawn can take ~0.5 s.
export default defineConfig({ test: { testTimeout: 30_000 } });
