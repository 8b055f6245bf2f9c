// Relative import: vitest bundles relative config imports, while workspace packages would load as untranspiled .ts.
import { integrationTestConfig } from './src/vitest-config.ts';

export default integrationTestConfig;
