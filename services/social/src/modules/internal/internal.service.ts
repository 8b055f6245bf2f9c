import type { EngagementRequest, RelationshipsRequest } from '@msp/contracts';

/** The SQL side of the batch reads (InternalReadsRepository, or a fake in unit tests). */
export interface InternalReads {
  engagement(viewerId: number, trackIds: number[], playlistIds: number[], userIds: number[]): Promise<string>;
  relationships(viewerId: number, userIds: number[]): Promise<string>;
}

const EMPTY_ENGAGEMENT = '{"tracks":[],"playlists":[],"users":[]}';
const EMPTY_RELATIONSHIPS = '{"items":[]}';

/**
 * Service-to-service batch reads: one answer per page of items, already JSON (the callers are
 * services of the fleet; the request is validated, the answer is built by PostgreSQL).
 * Duplicate ids collapse; the viewer is never related to themselves.
 */
export class InternalReadsService {
  constructor(private readonly reads: InternalReads) {}

  engagement(request: EngagementRequest): Promise<string> {
    const trackIds = [...new Set(request.trackIds)];
    const playlistIds = [...new Set(request.playlistIds)];
    const userIds = [...new Set(request.userIds)].filter((id) => id !== request.viewerId);
    if (trackIds.length + playlistIds.length + userIds.length === 0) return Promise.resolve(EMPTY_ENGAGEMENT);
    return this.reads.engagement(request.viewerId, trackIds, playlistIds, userIds);
  }

  relationships(request: RelationshipsRequest): Promise<string> {
    const userIds = [...new Set(request.userIds)];
    if (userIds.length === 0) return Promise.resolve(EMPTY_RELATIONSHIPS);
    return this.reads.relationships(request.viewerId, userIds);
  }
}
