import { defineConfig } from 'vitest/config';

/** Unit tests of pure rules with fake repositories: no database, no network (`pnpm test:unit`, well under a second). */
export default defineConfig({
  test: { include: ['test/unit/**/*.test.ts', 'src/**/*.test.ts'], pool: 'threads' },
});
