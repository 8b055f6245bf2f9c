/**
 * The one style of hand-written SQL in this repository: tagged templates.
 *
 * `sql` is Prisma's tag (`Prisma.sql`): every `${value}` becomes a bound parameter, never text, so
 * a statement cannot be injected into whatever a client sends. Fragments compose by nesting
 * (`sql\`... ${sql\`AND x = ${x}\`}\``), lists with `join`, optional parts with `empty`. `raw` is for
 * identifiers chosen from a fixed list in code (a column or table name), never for a value.
 *
 * A statement runs through a Prisma client (`$queryRaw(q)` / `$executeRaw(q)`, also inside a
 * transaction) or, on the read paths that keep named prepared statements on a `pg` pool, through
 * `pgStatement(q, name)`. The reasons for this choice are in docs/decisions.md ("One style of SQL").
 */
import { createHash } from 'node:crypto';
import { empty, join, raw, Sql, sqltag } from '@prisma/client/runtime/client';

export { empty, join, raw, Sql };
export const sql = sqltag;

/** A column or alias named in code (`t`, `t.artist_id`) as SQL text; anything else is refused. */
export function col(reference: string): Sql {
  if (!/^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$/.test(reference)) throw new Error(`invalid column reference "${reference}"`);
  return raw(reference);
}

/** What a value bound into `sql` may be (a nested `Sql` is spliced, not bound). */
export type SqlValue = Parameters<typeof sqltag>[1];

/**
 * The part of a Prisma client (or of its transaction) that runs tagged SQL. Every service's
 * generated client satisfies it structurally, so no package depends on any one schema.
 */
export interface SqlExecutor {
  $executeRaw(query: Sql): Promise<number>;
  $queryRaw<T = unknown>(query: Sql): Promise<T>;
}

/** A client that can open a transaction whose handle is a `Tx`. */
export interface TransactionalClient<Tx extends SqlExecutor = SqlExecutor> extends SqlExecutor {
  $transaction<R>(fn: (tx: Tx) => Promise<R>, options?: { maxWait?: number; timeout?: number }): Promise<R>;
}

/**
 * A unit of work: a service runs its writes and the outbox row of the event they cause in one
 * transaction without knowing Prisma; the repositories take the `tx` they are handed.
 */
export interface UnitOfWork<Tx extends SqlExecutor = SqlExecutor> {
  run<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
}

/** Waits at most 10 s for a connection and gives a transaction 10 s (Prisma's defaults are 2 s and 5 s). */
export const TRANSACTION_LIMITS = { maxWait: 10_000, timeout: 10_000 } as const;

export function prismaUnitOfWork<Tx extends SqlExecutor>(
  client: TransactionalClient<Tx>,
  limits: { maxWait?: number; timeout?: number } = TRANSACTION_LIMITS,
): UnitOfWork<Tx> {
  return { run: (work) => client.$transaction((tx) => work(tx), limits) };
}

/** A tagged statement as `pg`'s query config; `name` makes it a prepared statement planned once per connection. */
export function pgStatement(query: Sql, name?: string): { text: string; values: unknown[]; name?: string } {
  return name ? { name, text: query.text, values: query.values } : { text: query.text, values: query.values };
}

/**
 * `pgStatement` named after its text: `<prefix>_<sha1 of the text>`. For a statement whose text
 * takes one of a few shapes (optional filters, a kind): each shape becomes a prepared statement on
 * each connection, planned once and then run on a generic plan, and the same text always reuses it.
 * Only for texts that come from code (values bound, never spliced), so the shapes are finitely many.
 */
export function pgShapeStatement(query: Sql, prefix: string): { text: string; values: unknown[]; name: string } {
  const name = `${prefix}_${createHash('sha1').update(query.text).digest('hex').slice(0, 20)}`;
  return { name, text: query.text, values: query.values };
}

/** A `pg` pool or client as a SqlExecutor (scripts and benchmarks that share a repository with a service). */
export function pgSqlExecutor(target: {
  query: (config: { text: string; values: unknown[] }) => Promise<{ rows: unknown[]; rowCount: number | null }>;
}): SqlExecutor {
  return {
    $executeRaw: async (query) => (await target.query(pgStatement(query))).rowCount ?? 0,
    $queryRaw: async <T>(query: Sql) => (await target.query(pgStatement(query))).rows as T,
  };
}
