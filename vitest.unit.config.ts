import { defineConfig } from 'vitest/config';

/**
 * Unit tests of the whole repository: pure rules with fakes, no database, NATS, Redis or object
 * storage (no global setup), so `pnpm test:unit` answers in seconds. Integration tests stay in
 * each workspace's `test/` and run with `pnpm test`.
 */
export default defineConfig({
  test: {
    include: [
      'services/*/src/**/*.test.ts',
      'services/*/test/unit/**/*.test.ts',
      'gateway/src/**/*.test.ts',
      'gateway/test/unit/**/*.test.ts',
      // Pure already: the route table built from the contract.
      'gateway/test/route-table.test.ts',
      'packages/*/test/unit/**/*.test.ts',
    ],
    exclude: ['**/node_modules/**', '**/generated/**'],
    // Import time dominates a suite of pure tests: worker threads start faster than forked
    // processes, and without per-file isolation each worker imports zod, the contract and the
    // shared packages once instead of once per file. Unit tests keep no module-level state
    // between files (fake timers are restored in afterEach), so sharing the module graph is safe.
    pool: 'threads',
    isolate: false,
  },
});
