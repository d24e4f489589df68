import { defineConfig } from 'vitest/config';

// Spark tests drive a dozen peers through the fake homeserver over real HTTP (§5.11.10 makes a few
// hundred requests); at load 28 on 2 cores one took over vitest's default 5 s, and the next test
// then failed on the state it left behind. The timeout is a safety net, not a timing assertion.
export default defineConfig({ test: { testTimeout: 30_000 } });
