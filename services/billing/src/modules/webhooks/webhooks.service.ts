import { AppError } from '@msp/errors';
import type { StripeClient } from '../payments/stripe.client.js';
import { HANDLED_EVENT_TYPES, ProviderEventSchema } from './provider-events.js';
import type { WebhookEventsStore } from './webhooks.repository.js';

/**
 * SUB-5 receipt (R17): verify, store once, answer. The work is done from the stored event by the
 * webhook worker, so the provider gets its 200 fast and a failure in our processing is retried by
 * us from the database rather than lost.
 */
export class WebhooksService {
  constructor(
    private readonly stripe: Pick<StripeClient, 'verifyEvent'>,
    private readonly repo: WebhookEventsStore,
    private readonly wake: () => void,
  ) {}

  async receive(raw: Buffer, signature: string | undefined): Promise<{ message: string }> {
    if (!signature) throw new AppError('INVALID_SIGNATURE', 'The Stripe-Signature header is missing.');
    const parsed = ProviderEventSchema.safeParse(this.stripe.verifyEvent(raw, signature));
    if (!parsed.success) {
      throw AppError.validation(parsed.error.issues.map((i) => ({ field: i.path.map(String).join('.') || 'body', message: i.message })));
    }
    const event = parsed.data;
    if (!HANDLED_EVENT_TYPES.has(event.type)) return { message: `Event type ${event.type} is not used; ignored.` };
    const stored = await this.repo.insert(event);
    if (!stored) return { message: 'Event already received.' };
    this.wake();
    return { message: 'Event received.' };
  }
}
