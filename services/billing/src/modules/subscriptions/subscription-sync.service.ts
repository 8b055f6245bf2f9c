import { SubscriptionTierChanged, writeOutbox } from '@msp/events';
import type { BillingDeletionRepository } from '../deletion/user-deletion.repository.js';
import type { ProviderChange } from '../webhooks/provider-events.js';
import { isProStatus } from './subscription-status.mapper.js';
import type { StoredSubscription, SubscriptionStateStore, SubscriptionWrite, Tx } from './subscriptions.repository.js';

/** What applying one piece of provider state did (kept on the stored event). */
export type ApplyOutcome = 'applied' | 'stale' | 'unmatched' | 'ignored';

export interface ApplyContext {
  /** When the provider produced this state (event `created`; for an API answer, now). */
  at: Date;
  /** An API answer to our own call (SUB-3/4) is current by definition: never dropped as stale. */
  fromApi?: boolean;
  correlationId?: string | null;
}

/**
 * Applies provider state to the stored subscription (R17) inside the caller's transaction, and
 * publishes a tier change through the outbox in that same transaction. Used by the webhook worker
 * for stored events and by SUB-3/SUB-4 for the provider's answer.
 */
export class SubscriptionSync {
  constructor(
    private readonly repo: SubscriptionStateStore,
    private readonly retired?: Pick<BillingDeletionRepository, 'isRetired'>,
  ) {}

  async apply(tx: Tx, change: ProviderChange, context: ApplyContext): Promise<{ outcome: ApplyOutcome; row: StoredSubscription | null }> {
    // ACC-5: the provider's later news about a deleted account (its cancellation, say) is dropped.
    if (await this.retired?.isRetired(tx, { subscriptionId: change.subscriptionId, customerId: change.customerId })) {
      return { outcome: 'ignored', row: null };
    }
    const userId = await this.resolveUser(tx, change);
    if (userId === null) return { outcome: 'unmatched', row: null };
    await this.repo.lockUser(tx, userId);
    const row = await this.repo.findByUser(userId, tx);

    // R17: Stripe does not deliver in order; what is older than the last applied state is dropped.
    if (!context.fromApi && row?.lastEventAt && context.at < row.lastEventAt) return { outcome: 'stale', row };

    const write = this.writeFor(change, row);
    if (write === null) return { outcome: 'ignored', row };
    const lastEventAt = row?.lastEventAt && row.lastEventAt > context.at ? row.lastEventAt : context.at;
    const before = row ? isProStatus(row.status) : false;
    const after = isProStatus(write.status ?? row?.status ?? 'cancelled');
    const tierVersion = (row?.tierVersion ?? 0) + (before !== after ? 1 : 0);
    const data: SubscriptionWrite = { ...write, lastEventAt, tierVersion };
    const saved = row ? await this.repo.update(tx, userId, data) : await this.repo.create(tx, userId, { status: 'cancelled', ...data });
    if (before !== after) {
      await writeOutbox(
        tx,
        SubscriptionTierChanged,
        {
          userId,
          tier: after ? 'PRO' : 'FREE',
          status: saved.status,
          version: saved.tierVersion,
          currentPeriodEnd: saved.currentPeriodEnd?.toISOString() ?? null,
        },
        { correlationId: context.correlationId ?? null },
      );
    }
    return { outcome: 'applied', row: saved };
  }

  private async resolveUser(tx: Tx, change: ProviderChange): Promise<number | null> {
    if (change.kind === 'link') return change.userId;
    const bySubscription = await this.repo.userOfSubscription(tx, change.subscriptionId);
    if (bySubscription !== null) return bySubscription;
    // Not linked yet (its checkout.session.completed may come later): the subscription's metadata
    // (set by SUB-2) or the customer SUB-2 created name the user.
    if (change.kind === 'subscription' && change.userId !== null) return change.userId;
    return change.customerId ? this.repo.userOfCustomer(tx, change.customerId) : null;
  }

  /** The columns a change sets, or null when it does not apply to this row. */
  private writeFor(change: ProviderChange, row: StoredSubscription | null): SubscriptionWrite | null {
    switch (change.kind) {
      case 'link':
        // Links only (R17); the subscription's own events bring its status.
        return {
          providerSubscriptionId: change.subscriptionId,
          ...(change.customerId ? { providerCustomerId: change.customerId } : {}),
        };
      case 'subscription': {
        const other = row?.providerSubscriptionId && row.providerSubscriptionId !== change.subscriptionId;
        // A user follows one subscription: another one replaces it only when the stored one gives
        // no access any more, or when the other one does (the newest paid subscription wins).
        if (other && isProStatus(row.status) && !isProStatus(change.status)) return null;
        return {
          providerSubscriptionId: change.subscriptionId,
          ...(change.customerId ? { providerCustomerId: change.customerId } : {}),
          status: change.status,
          providerStatus: change.providerStatus,
          cancelAtPeriodEnd: change.cancelAtPeriodEnd,
          ...(change.currentPeriodEnd ? { currentPeriodEnd: change.currentPeriodEnd } : {}),
        };
      }
      case 'invoice': {
        if (row?.providerSubscriptionId && row.providerSubscriptionId !== change.subscriptionId) return null;
        if (change.paid) return { providerSubscriptionId: change.subscriptionId, status: 'active', providerStatus: 'active' };
        // A failed renewal keeps access while Stripe retries (past_due); a subscription that never
        // started (first payment failed, or already over) does not become Pro by failing.
        if (!row || !isProStatus(row.status)) return null;
        return { status: 'past_due', providerStatus: 'past_due' };
      }
    }
  }
}
