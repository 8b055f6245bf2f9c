// Relative import: vitest bundles relative config imports, while workspace packages would load as untranspiled .ts.
import { mergeConfig } from 'vitest/config';
import { integrationTestConfig } from '../../packages/testing/src/vitest-config.ts';

// Each file boots a whole fleet on ports it picks up front; one file at a time keeps two fleets
// from racing for the same free port and keeps the 2-core machine from timing out a boot.
export default mergeConfig(integrationTestConfig, { test: { fileParallelism: false } });
