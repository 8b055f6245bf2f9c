import pg from 'pg';

const PG_NAME_OID = 19;
const PG_TEXT_OID = 25;

/**
 * A pg Pool whose results report PostgreSQL's `name` columns as `text`.
 * Prisma's wasm engine cannot deserialize `name` (prisma/prisma#27403) and the
 * migration engine reads catalog tables that use it.
 */
class NameAsTextPool extends pg.Pool {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const result = (super.query as any)(...args);
    if (result && typeof result.then === 'function') {
      return result.then((res: pg.QueryResult) => {
        for (const field of res?.fields ?? []) {
          if (field.dataTypeID === PG_NAME_OID) field.dataTypeID = PG_TEXT_OID;
        }
        return res;
      });
    }
    return result;
  }
}

export interface PgPoolLimits {
  /** How long a query waits for a free connection before it fails (0: for ever). */
  connectionTimeoutMs?: number;
  /** PostgreSQL's statement_timeout of every connection (0: none). */
  statementTimeoutMs?: number;
}

/**
 * A pool for a service's database. With `limits` a burst cannot pile up: a query that gets no
 * connection within `connectionTimeoutMs` fails ("timeout exceeded when trying to connect"), and a
 * statement running longer than `statementTimeoutMs` is cancelled by the server (SQLSTATE 57014);
 * the error handler of @msp/errors answers both with 503 and Retry-After.
 */
export function createPgPool(connectionString: string, max = 10, limits: PgPoolLimits = {}): pg.Pool {
  return new NameAsTextPool({
    connectionString,
    max,
    ...(limits.connectionTimeoutMs ? { connectionTimeoutMillis: limits.connectionTimeoutMs } : {}),
    ...(limits.statementTimeoutMs ? { statement_timeout: limits.statementTimeoutMs } : {}),
  });
}
