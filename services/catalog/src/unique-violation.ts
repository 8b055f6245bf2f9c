/**
 * Prisma's unique violation (`PrismaClientKnownRequestError` with code P2002), recognised by its
 * name and code so that the services deciding on it need not load the Prisma client.
 */
function p2002(err: unknown): { meta?: unknown } | null {
  if (!(err instanceof Error) || err.name !== 'PrismaClientKnownRequestError') return null;
  return (err as { code?: unknown }).code === 'P2002' ? (err as { meta?: unknown }) : null;
}

/** A unique violation (P2002): a concurrent create took the slug. */
export function isUniqueViolation(err: unknown): boolean {
  return p2002(err) !== null;
}

/** The constraint a unique violation (P2002) hit, as text; null for any other error. */
export function uniqueViolationTarget(err: unknown): string | null {
  const violation = p2002(err);
  return violation ? JSON.stringify(violation.meta ?? {}) : null;
}
