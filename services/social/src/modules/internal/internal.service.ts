import type { RelationshipsRequest } from '@msp/contracts';

/** The SQL side of the batch reads (InternalReadsRepository, or a fake in unit tests). */
export interface InternalReads {
  relationships(viewerId: number, userIds: number[]): Promise<string>;
}

const EMPTY_RELATIONSHIPS = '{"items":[]}';

/**
 * Service-to-service batch reads: one answer per page of items, already JSON (the callers are
 * services of the fleet; the request is validated, the answer is built by PostgreSQL).
 * Duplicate ids collapse.
 */
export class InternalReadsService {
  constructor(private readonly reads: InternalReads) {}

  relationships(request: RelationshipsRequest): Promise<string> {
    const userIds = [...new Set(request.userIds)];
    if (userIds.length === 0) return Promise.resolve(EMPTY_RELATIONSHIPS);
    return this.reads.relationships(request.viewerId, userIds);
  }
}
