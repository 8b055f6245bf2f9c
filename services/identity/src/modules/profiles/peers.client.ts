import { InternalCallError, InternalClient } from '@msp/http';
import type { FastifyBaseLogger } from 'fastify';
import { INTERNAL_OPERATIONS, type RelationshipsResponse } from '@msp/contracts';
import { AppError } from '@msp/errors';

export type Relationship = RelationshipsResponse['items'][number];

/**
 * What identity asks other services, each in one call with a short timeout. Social's answer only
 * decorates a profile, so a failure degrades to "no relationship"; billing's decides USR-5, so a
 * failure there is a 503 rather than a guess.
 */
export class PeersClient {
  private readonly social: InternalClient;
  private readonly billing: InternalClient;

  constructor(
    urls: { social: string; billing: string },
    timeoutMs: number,
    private readonly logger: FastifyBaseLogger,
  ) {
    this.social = new InternalClient({ target: 'social', baseUrl: urls.social, timeoutMs });
    this.billing = new InternalClient({ target: 'billing', baseUrl: urls.billing, timeoutMs });
  }

  /** How `viewerId` relates to each user (INTERNAL_OPERATIONS.relationships), or null when social does not answer. */
  async relationships(viewerId: number, userIds: number[]): Promise<Map<number, Relationship> | null> {
    if (userIds.length === 0) return new Map();
    try {
      const { body } = await this.social.send(INTERNAL_OPERATIONS.relationships, { body: { viewerId, userIds } });
      return new Map((body?.items ?? []).map((item) => [item.userId, item]));
    } catch (err) {
      if (!(err instanceof InternalCallError)) throw err;
      this.logger.warn({ err: err.message }, 'relationships unavailable; profile flags degrade to false');
      return null;
    }
  }

  /**
   * The user's subscription status from billing (INTERNAL_OPERATIONS.subscription); a 404 means the
   * user never subscribed.
   */
  async subscriptionStatus(userId: number): Promise<string> {
    let answer;
    try {
      // Validated: the answer decides USR-5.
      answer = await this.billing.send(INTERNAL_OPERATIONS.subscription, { params: { userId } }, { acceptStatuses: [404], validate: true });
    } catch (err) {
      throw unavailable(err);
    }
    if (answer.status === 404) return 'cancelled';
    if (!answer.body) throw unavailable(new Error('billing answered without a body'));
    return answer.body.status;
  }
}

function unavailable(cause: unknown): AppError {
  return new AppError('SERVICE_UNAVAILABLE', 'The subscription state cannot be checked right now; try again.', {
    cause,
    headers: { 'retry-after': '5' },
  });
}
