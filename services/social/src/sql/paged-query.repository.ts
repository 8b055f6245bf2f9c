import type { PrismaClient } from '../generated/prisma/client.js';

/**
 * One page of a list and its total, from the same FROM/WHERE and the same leading parameters:
 * `select` and `order` wrap `from` for the page (LIMIT/OFFSET appended as the next two
 * parameters), the count reuses `from` as is. Both queries run at once.
 */
export async function pagedQuery<Row>(
  prisma: PrismaClient,
  query: { select: string; from: string; order: string; params: readonly unknown[] },
  page: number,
  size: number,
): Promise<{ rows: Row[]; total: number }> {
  const n = query.params.length;
  const [rows, count] = await Promise.all([
    prisma.$queryRawUnsafe<Row[]>(`${query.select} ${query.from} ${query.order} LIMIT $${n + 1} OFFSET $${n + 2}`, ...query.params, size, page * size),
    prisma.$queryRawUnsafe<Array<{ total: number }>>(`SELECT count(*)::int AS total ${query.from}`, ...query.params),
  ]);
  return { rows, total: count[0]?.total ?? 0 };
}
