import { internalCallHeaders } from '@msp/http';
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import { INTERNAL_ROUTES, RelationshipsResponseSchema, type RelationshipsResponse } from '@msp/contracts';
import { AppError } from '@msp/errors';

export type Relationship = RelationshipsResponse['items'][number];

/**
 * What identity asks other services, each in one call with a short timeout. Social's answer only
 * decorates a profile, so a failure degrades to "no relationship"; billing's decides USR-5, so a
 * failure there is a 503 rather than a guess.
 */
export class PeersClient {
  constructor(
    private readonly urls: { social: string; billing: string },
    private readonly timeoutMs: number,
    private readonly logger: FastifyBaseLogger,
  ) {}

  /** How `viewerId` relates to each user (INTERNAL_ROUTES.relationships), or null when social does not answer. */
  async relationships(viewerId: number, userIds: number[]): Promise<Map<number, Relationship> | null> {
    if (userIds.length === 0) return new Map();
    try {
      const res = await fetch(`${this.urls.social.replace(/\/+$/, '')}${INTERNAL_ROUTES.relationships}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...internalCallHeaders() },
        body: JSON.stringify({ viewerId, userIds }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (!res.ok) throw new Error(`social answered ${res.status}`);
      const body = RelationshipsResponseSchema.parse(await res.json());
      return new Map(body.items.map((item) => [item.userId, item]));
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'relationships unavailable; profile flags degrade to false');
      return null;
    }
  }

  /**
   * The user's subscription status from billing (`GET /internal/subscriptions/{userId}` answering
   * at least `{ status }`); a 404 means the user never subscribed.
   */
  async subscriptionStatus(userId: number): Promise<string> {
    let res: Response;
    try {
      res = await fetch(`${this.urls.billing.replace(/\/+$/, '')}/internal/subscriptions/${userId}`, {
        headers: { accept: 'application/json', ...internalCallHeaders() },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw unavailable(err);
    }
    if (res.status === 404) return 'cancelled';
    if (!res.ok) throw unavailable(new Error(`billing answered ${res.status}`));
    const parsed = SubscriptionAnswerSchema.safeParse(await res.json().catch(() => null));
    if (!parsed.success) throw unavailable(new Error('billing answered an unexpected body'));
    return parsed.data.status;
  }
}

const SubscriptionAnswerSchema = z.object({ status: z.string() });

function unavailable(cause: unknown): AppError {
  return new AppError('SERVICE_UNAVAILABLE', 'The subscription state cannot be checked right now; try again.', {
    cause,
    headers: { 'retry-after': '5' },
  });
}
