import { sql, type Sql } from '@msp/db';
import type { PrismaClient } from '../generated/prisma/client.js';

/**
 * One page of a list and its total, from the same FROM/WHERE (its values bound inside the
 * fragments): `select` and `order` wrap `from` for the page (LIMIT/OFFSET bound after them), the
 * count reuses `from` as is. Both queries run at once.
 */
export async function pagedQuery<Row>(
  prisma: PrismaClient,
  query: { select: Sql; from: Sql; order: Sql },
  page: number,
  size: number,
): Promise<{ rows: Row[]; total: number }> {
  const [rows, count] = await Promise.all([
    prisma.$queryRaw<Row[]>(sql`${query.select} ${query.from} ${query.order} LIMIT ${size} OFFSET ${page * size}`),
    prisma.$queryRaw<Array<{ total: number }>>(sql`SELECT count(*)::int AS total ${query.from}`),
  ]);
  return { rows, total: count[0]?.total ?? 0 };
}
