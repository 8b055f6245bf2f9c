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

export function createPgPool(connectionString: string, max = 10): pg.Pool {
  return new NameAsTextPool({ connectionString, max });
}
