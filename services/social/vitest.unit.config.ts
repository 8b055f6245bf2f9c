import { defineConfig } from 'vitest/config';

/** The fast suite: pure rules with fakes, no database, NATS or network (`pnpm test:unit`). */
export default defineConfig({
  test: { include: ['src/**/*.test.ts'], pool: 'threads' },
});
