import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** The one vitest configuration of the workspaces that test against real infrastructure. */
export const integrationTestConfig = defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: [fileURLToPath(new URL('./global-setup.ts', import.meta.url))],
  },
});
