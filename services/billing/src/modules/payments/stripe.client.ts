import Stripe from 'stripe';
import { AppError } from '@msp/errors';
import { stripeApiAddress, type BillingConfig } from '../../config.js';
import { MissingCustomerError } from './provider-errors.js';

export { MissingCustomerError };

/** What billing needs of a provider subscription after SUB-3/SUB-4. */
export type ProviderSubscription = Stripe.Subscription;

/**
 * The only code that talks to Stripe: the official library, pointed by configuration at Stripe
 * or at the local stand-in. Provider failures become 502 PROVIDER_ERROR; signature problems
 * 400 INVALID_SIGNATURE.
 */
export class StripeClient {
  readonly stripe: Stripe;

  constructor(private readonly config: BillingConfig) {
    this.stripe = new Stripe(config.STRIPE_SECRET_KEY, {
      ...stripeApiAddress(config),
      timeout: config.STRIPE_TIMEOUT_MS,
      // Creations carry idempotency keys, so the library's retries cannot duplicate them.
      maxNetworkRetries: 1,
      telemetry: false,
      appInfo: { name: 'msp-billing' },
    });
  }

  /**
   * Creates the user's customer; the key makes a retry (or a racing request) get the same one.
   * `replacing` names a customer that vanished at the provider, so its replacement gets a new key.
   */
  async createCustomer(userId: number, replacing?: string): Promise<string> {
    const idempotencyKey = `msp-customer-user-${userId}${replacing ? `-after-${replacing}` : ''}`;
    const customer = await this.call(() => this.stripe.customers.create({ metadata: { userId: String(userId) } }, { idempotencyKey }));
    return customer.id;
  }

  /** R17: a subscription-mode Checkout Session for the Pro price, returning to the web app. */
  async createCheckoutSession(userId: number, customerId: string): Promise<{ id: string; url: string }> {
    const web = this.config.WEB_BASE_URL.replace(/\/+$/, '');
    const session = await this.call(
      () =>
        this.stripe.checkout.sessions.create({
          mode: 'subscription',
          customer: customerId,
          client_reference_id: String(userId),
          line_items: [{ price: this.config.STRIPE_PRICE_ID, quantity: 1 }],
          // Stripe replaces {CHECKOUT_SESSION_ID} with the session id on the way back.
          success_url: `${web}/checkout/success?session_id={CHECKOUT_SESSION_ID}`,
          cancel_url: `${web}/checkout/cancel`,
          // The subscription carries the user too, so its events resolve even before the session's.
          subscription_data: { metadata: { userId: String(userId) } },
          metadata: { userId: String(userId) },
        }),
      (err) => (isMissing(err, 'customer') ? new MissingCustomerError(customerId) : null),
    );
    if (!session.url) throw new AppError('PROVIDER_ERROR', 'The payment provider returned no checkout URL.');
    return { id: session.id, url: session.url };
  }

  /** SUB-3 (true) / SUB-4 (false). */
  setCancelAtPeriodEnd(subscriptionId: string, cancel: boolean): Promise<ProviderSubscription> {
    return this.call(() => this.stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: cancel }));
  }

  /**
   * ACC-5: cancels the subscription at once (no period end to wait for: the account is gone).
   * One already canceled or unknown at the provider counts as done, so a retry converges.
   */
  async cancelNow(subscriptionId: string): Promise<void> {
    const current = await this.call(
      () => this.stripe.subscriptions.retrieve(subscriptionId),
      (err) => (isMissing(err, 'id') ? new MissingResourceError() : null),
    ).catch((err: unknown) => {
      if (err instanceof MissingResourceError) return null;
      throw err;
    });
    if (!current || current.status === 'canceled') return;
    await this.call(() => this.stripe.subscriptions.cancel(subscriptionId));
  }

  /**
   * ACC-5: deletes the customer at the provider (its payment methods and personal details; the
   * provider keeps the invoices, as the law requires). An unknown customer counts as done.
   */
  async deleteCustomer(customerId: string): Promise<void> {
    await this.call(
      () => this.stripe.customers.del(customerId),
      (err) => (isMissing(err, 'id') ? new MissingResourceError() : null),
    ).catch((err: unknown) => {
      if (!(err instanceof MissingResourceError)) throw err;
    });
  }

  /**
   * SUB-5: `constructEvent` checks Stripe-Signature over the raw bytes (HMAC-SHA256 with the
   * endpoint secret, timestamp within the tolerance) and only then parses them. A signature
   * problem is 400 INVALID_SIGNATURE; verified bytes that are not JSON throw a SyntaxError
   * (400 MALFORMED_REQUEST); anything else is ours.
   */
  verifyEvent(raw: Buffer, signature: string): unknown {
    try {
      return this.stripe.webhooks.constructEvent(raw, signature, this.config.STRIPE_WEBHOOK_SECRET, this.config.STRIPE_WEBHOOK_TOLERANCE_SECONDS);
    } catch (err) {
      if (err instanceof Stripe.errors.StripeSignatureVerificationError) {
        throw new AppError('INVALID_SIGNATURE', 'The Stripe-Signature header does not match this body, or is older than allowed.', { cause: err });
      }
      throw err;
    }
  }

  private async call<T>(fn: () => Promise<T>, special?: (err: unknown) => Error | null): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof AppError) throw err;
      const mapped = special?.(err);
      if (mapped) throw mapped;
      throw new AppError('PROVIDER_ERROR', 'The payment provider could not be reached or refused the request; try again.', { cause: err });
    }
  }
}

/** The named object does not exist at the provider (any more). */
class MissingResourceError extends Error {}

function isMissing(err: unknown, param: string): boolean {
  return err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'resource_missing' && err.param === param;
}
