import { z } from 'zod';
import type { SubscriptionStatus } from '../../generated/prisma/client.js';

/**
 * Reading Stripe events. Only the fields billing uses are declared (the objects carry many more),
 * each tolerant of the API versions Stripe may send: the subscription period end moved from the
 * subscription to its items in 2025, an invoice's subscription from `subscription` to
 * `parent.subscription_details.subscription`; both forms are read.
 */

/** The R17 event types SUB-5 stores and applies; any other type is answered 200 and dropped. */
export const HANDLED_EVENT_TYPES = new Set([
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.paid',
  'invoice.payment_succeeded',
  'invoice.payment_failed',
]);

export const ProviderEventSchema = z.object({
  id: z.string().min(1).max(255),
  type: z.string().min(1).max(255),
  created: z.number().int().nonnegative(),
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});
export type ProviderEventBody = z.infer<typeof ProviderEventSchema>;

const idOf = z.union([z.string(), z.object({ id: z.string() }).transform((o) => o.id)]);

const CheckoutSessionSchema = z.object({
  mode: z.string().nullish(),
  client_reference_id: z.string().nullish(),
  customer: idOf.nullish(),
  subscription: idOf.nullish(),
});

const SubscriptionObjectSchema = z.object({
  id: z.string(),
  customer: idOf.nullish(),
  status: z.string(),
  cancel_at_period_end: z.boolean().nullish(),
  current_period_end: z.number().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  items: z.object({ data: z.array(z.object({ current_period_end: z.number().nullish() })) }).nullish(),
});

const InvoiceSchema = z.object({
  customer: idOf.nullish(),
  subscription: idOf.nullish(),
  parent: z.object({ subscription_details: z.object({ subscription: idOf.nullish() }).nullish() }).nullish(),
});

export type ProviderChange =
  /** checkout.session.completed: link the user to their customer and subscription. */
  | { kind: 'link'; userId: number; customerId: string | null; subscriptionId: string }
  /** customer.subscription.*: copy status, period end and cancelAtPeriodEnd. */
  | {
      kind: 'subscription';
      subscriptionId: string;
      customerId: string | null;
      userId: number | null;
      status: SubscriptionStatus;
      providerStatus: string;
      currentPeriodEnd: Date | null;
      cancelAtPeriodEnd: boolean;
    }
  /** invoice.*: paid → active, payment failed → past_due. */
  | { kind: 'invoice'; subscriptionId: string; customerId: string | null; paid: boolean };

/** R17: Stripe's statuses onto ours; everything that is not paid access is `cancelled`. */
export function statusFromProvider(status: string): SubscriptionStatus {
  switch (status) {
    case 'active':
    case 'trialing':
    case 'past_due':
      return status;
    default:
      // canceled, unpaid, incomplete, incomplete_expired, paused: no Pro access.
      return 'cancelled';
  }
}

function positiveInt(value: string | null | undefined): number | null {
  if (!value || !/^\d{1,10}$/.test(value)) return null;
  const n = Number(value);
  return n > 0 && n <= 2_147_483_647 ? n : null;
}

/** The change a Stripe subscription object asks for (webhooks and SUB-3/SUB-4 answers alike). */
export function subscriptionChange(object: unknown, deleted = false): ProviderChange | null {
  const parsed = SubscriptionObjectSchema.safeParse(object);
  if (!parsed.success) return null;
  const sub = parsed.data;
  const itemEnds = (sub.items?.data ?? []).map((i) => i.current_period_end).filter((n): n is number => typeof n === 'number');
  const end = itemEnds.length > 0 ? Math.max(...itemEnds) : (sub.current_period_end ?? null);
  return {
    kind: 'subscription',
    subscriptionId: sub.id,
    customerId: sub.customer ?? null,
    userId: positiveInt(sub.metadata?.userId),
    status: deleted ? 'cancelled' : statusFromProvider(sub.status),
    providerStatus: deleted ? 'canceled' : sub.status,
    currentPeriodEnd: end === null ? null : new Date(end * 1000),
    cancelAtPeriodEnd: deleted ? false : (sub.cancel_at_period_end ?? false),
  };
}

/** What an event of a handled type asks for, or null when its object is not what R17 applies. */
export function changeOf(event: ProviderEventBody): ProviderChange | null {
  const object = event.data.object;
  switch (event.type) {
    case 'checkout.session.completed': {
      const parsed = CheckoutSessionSchema.safeParse(object);
      if (!parsed.success || parsed.data.mode !== 'subscription' || !parsed.data.subscription) return null;
      const userId = positiveInt(parsed.data.client_reference_id);
      if (userId === null) return null;
      return { kind: 'link', userId, customerId: parsed.data.customer ?? null, subscriptionId: parsed.data.subscription };
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
      return subscriptionChange(object);
    case 'customer.subscription.deleted':
      return subscriptionChange(object, true);
    case 'invoice.paid':
    case 'invoice.payment_succeeded':
    case 'invoice.payment_failed': {
      const parsed = InvoiceSchema.safeParse(object);
      if (!parsed.success) return null;
      const inv = parsed.data;
      const subscriptionId = inv.parent?.subscription_details?.subscription ?? inv.subscription ?? null;
      // An invoice outside a subscription (one-off) has nothing to do with Pro.
      if (!subscriptionId) return null;
      return { kind: 'invoice', subscriptionId, customerId: inv.customer ?? null, paid: event.type !== 'invoice.payment_failed' };
    }
    default:
      return null;
  }
}
