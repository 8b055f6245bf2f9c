// Relative import: vitest bundles relative config imports, while workspace packages would load as untranspiled .ts.
import { mergeConfig } from 'vitest/config';
import { integrationTestConfig } from '../../packages/testing/src/vitest-config.ts';

// One workload at a time: each is built, deployed (`pnpm deploy --prod`) and started as in its image.
export default mergeConfig(integrationTestConfig, { test: { fileParallelism: false, testTimeout: 120_000 } });
