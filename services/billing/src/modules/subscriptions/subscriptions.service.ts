import type { CheckoutSession, InternalSubscription, SubscriptionChangeResult, SubscriptionStatusResponse } from '@msp/contracts';
import { AppError } from '@msp/errors';
import { MissingCustomerError } from '../payments/provider-errors.js';
import type { StripeClient } from '../payments/stripe.client.js';
import { subscriptionChange } from '../webhooks/provider-events.js';
import { isProStatus, toSubscriptionStatus } from './subscription-status.mapper.js';
import type { SubscriptionSync } from './subscription-sync.service.js';
import type { StoredSubscription, SubscriptionsStore } from './subscriptions.repository.js';

/** SUB-1…SUB-4 and the internal subscription read. Collaborators are given (app.ts wires them). */
export class SubscriptionsService {
  constructor(
    private readonly repo: SubscriptionsStore,
    private readonly sync: Pick<SubscriptionSync, 'apply'>,
    private readonly stripe: Pick<StripeClient, 'createCustomer' | 'createCheckoutSession' | 'setCancelAtPeriodEnd'>,
  ) {}

  /** SUB-1. A user without a subscription row never subscribed. */
  async status(userId: number): Promise<SubscriptionStatusResponse> {
    return toSubscriptionStatus(await this.repo.findByUser(userId));
  }

  /** The stored subscription for other services, or null when the user never subscribed. */
  async internal(userId: number): Promise<InternalSubscription | null> {
    const row = await this.repo.findByUser(userId);
    if (!row) return null;
    return {
      userId,
      status: row.status,
      currentPeriodEnd: row.currentPeriodEnd?.toISOString() ?? null,
      cancelAtPeriodEnd: row.cancelAtPeriodEnd,
    };
  }

  /**
   * SUB-2 (R17): a Checkout Session for the user's one customer (created on the first checkout,
   * reused after). 409 while the stored subscription gives Pro.
   */
  async checkout(userId: number): Promise<CheckoutSession> {
    const row = await this.repo.findByUser(userId);
    if (row && isProStatus(row.status)) {
      throw new AppError('SUBSCRIPTION_ALREADY_ACTIVE', 'You already have an active Pro subscription.');
    }
    const customerId = (await this.repo.findCustomer(userId)) ?? (await this.repo.saveCustomer(userId, await this.stripe.createCustomer(userId)));
    try {
      const session = await this.stripe.createCheckoutSession(userId, customerId);
      return { checkoutUrl: session.url, sessionId: session.id };
    } catch (err) {
      if (!(err instanceof MissingCustomerError)) throw err;
      // The customer is gone at the provider: the user gets a new one, once.
      const replacement = await this.stripe.createCustomer(userId, customerId);
      await this.repo.replaceCustomer(userId, customerId, replacement);
      const session = await this.stripe.createCheckoutSession(userId, replacement);
      return { checkoutUrl: session.url, sessionId: session.id };
    }
  }

  /** SUB-3: cancel at the period end; access stays until then (R17). */
  cancel(userId: number, correlationId: string): Promise<SubscriptionChangeResult> {
    return this.setCancelAtPeriodEnd(userId, true, correlationId);
  }

  /** SUB-4: keep the subscription going, before its period ends (R17). */
  renew(userId: number, correlationId: string): Promise<SubscriptionChangeResult> {
    return this.setCancelAtPeriodEnd(userId, false, correlationId);
  }

  private async setCancelAtPeriodEnd(userId: number, cancel: boolean, correlationId: string): Promise<SubscriptionChangeResult> {
    const row = await this.repo.findByUser(userId);
    const live = this.liveSubscriptionId(row);
    if (!live) {
      throw new AppError(
        'SUBSCRIPTION_STATE_CONFLICT',
        cancel ? 'There is no active subscription to cancel.' : 'There is no subscription to renew; start a new checkout.',
      );
    }
    let saved = row!;
    // Already in the asked state: answered as is (a retried request must not fail).
    if (saved.cancelAtPeriodEnd !== cancel) {
      const answer = await this.stripe.setCancelAtPeriodEnd(live, cancel);
      const change = subscriptionChange(answer);
      if (!change) throw new AppError('PROVIDER_ERROR', 'The payment provider answered an unexpected subscription.');
      const at = new Date(Math.floor(Date.now() / 1000) * 1000);
      const applied = await this.repo.transaction((tx) => this.sync.apply(tx, change, { at, fromApi: true, correlationId }), { timeout: 15_000 });
      saved = applied.row ?? saved;
    }
    const status = toSubscriptionStatus(saved);
    const end = status.currentPeriodEndAt;
    const message = cancel
      ? `Your subscription will end at the end of the current period${end ? ` (${end})` : ''}; Pro stays until then.`
      : 'Your subscription will renew at the end of the current period.';
    return { ...status, message };
  }

  /** The provider id of a subscription SUB-3/SUB-4 can still change: paid access, period not over. */
  private liveSubscriptionId(row: StoredSubscription | null): string | null {
    if (!row?.providerSubscriptionId || !isProStatus(row.status)) return null;
    if (row.currentPeriodEnd && row.currentPeriodEnd.getTime() <= Date.now()) return null;
    return row.providerSubscriptionId;
  }
}
