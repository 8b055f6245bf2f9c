export { createPgPool } from './pool.js';
export { ensureDatabase, dropDatabase } from './database.js';
export { migrate, type MigrationResult } from './migrate.js';
export { prepareDatabase } from './prepare.js';
