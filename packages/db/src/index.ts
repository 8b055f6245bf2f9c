export { createPgPool } from './pool.js';
export { ensureDatabase, dropDatabase } from './database.js';
export { migrate, type MigrateOptions, type MigrationResult, type SharedMigration } from './migrate.js';
export { prepareDatabase } from './prepare.js';
export { runMigrationCommand } from './migrate-cli.js';
export {
  col,
  empty,
  join,
  pgShapeStatement,
  pgSqlExecutor,
  pgStatement,
  prismaUnitOfWork,
  raw,
  sql,
  Sql,
  TRANSACTION_LIMITS,
  type SqlExecutor,
  type SqlValue,
  type TransactionalClient,
  type UnitOfWork,
} from './sql.js';
