/**
 * Writes the next migration of the service in the current folder:
 *   pnpm --filter @msp/<service> migration:create <name>
 * Prisma's `migrate diff --from-migrations` needs a shadow database, which the offline wasm
 * engine cannot drive here. So every migration folder keeps the schema it was made from
 * (`schema.snapshot.prisma`) and the next one is the datamodel-to-datamodel diff: no database.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const name = (process.argv[2] ?? '').replace(/[^a-z0-9_]/gi, '_').toLowerCase();
if (!name) {
  console.error('usage: migration:create <name>');
  process.exit(2);
}
const dir = path.resolve('prisma/migrations');
mkdirSync(dir, { recursive: true });
const previous = readdirSync(dir, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort()
  .at(-1);
const from = previous ? ['--from-schema-datamodel', path.join(dir, previous, 'schema.snapshot.prisma')] : ['--from-empty'];
if (previous && !existsSync(from[1]!)) {
  console.error(`${previous} has no schema.snapshot.prisma`);
  process.exit(1);
}
const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: '/bin/true',
  PRISMA_QUERY_ENGINE_LIBRARY: '/bin/true',
  DATABASE_URL: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
};
const sql = execFileSync('prisma', ['migrate', 'diff', ...from, '--to-schema-datamodel', 'prisma/schema.prisma', '--script'], {
  env,
  encoding: 'utf8',
});
if (!sql.replace(/--.*$/gm, '').trim()) {
  console.log('No schema changes.');
  process.exit(0);
}
const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
const target = path.join(dir, `${stamp}_${name}`);
mkdirSync(target);
writeFileSync(path.join(target, 'migration.sql'), sql);
copyFileSync('prisma/schema.prisma', path.join(target, 'schema.snapshot.prisma'));
if (!existsSync(path.join(dir, 'migration_lock.toml'))) {
  writeFileSync(path.join(dir, 'migration_lock.toml'), 'provider = "postgresql"\n');
}
console.log(`Wrote ${path.relative(process.cwd(), target)}`);
