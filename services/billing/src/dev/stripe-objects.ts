import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';

/**
 * Stripe's object shapes as the stand-in answers them (API version of the installed library):
 * only the fields Stripe always sends and billing or its tests read. Pure builders: the stand-in
 * keeps the state.
 */

export type StripeObject = Record<string, unknown> & { id: string; object: string };

const DAY = 24 * 60 * 60;
const API_VERSION = Stripe.API_VERSION;

export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;
}

export const now = () => Math.floor(Date.now() / 1000);

/** Decodes `a[b][0][c]=v` pairs (what the library sends) into nested objects and arrays. */
export function decodeStripeForm(raw: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    const parts = key.split(/\[|\]\[|\]/).filter((p) => p !== '');
    let node: Record<string, unknown> | unknown[] = root;
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      const container = node as Record<string, unknown>;
      if (last) {
        container[part] = value;
        return;
      }
      const nextIsIndex = /^\d+$/.test(parts[i + 1]!);
      container[part] ??= nextIsIndex ? [] : {};
      node = container[part] as Record<string, unknown>;
    });
  }
  return root;
}

export function itemsOf(sub: StripeObject): Array<Record<string, unknown>> {
  return ((sub.items as { data?: Array<Record<string, unknown>> })?.data ?? []) as Array<Record<string, unknown>>;
}

export function periodEndOf(sub: StripeObject): number {
  return Math.max(0, ...itemsOf(sub).map((i) => Number(i.current_period_end ?? 0)));
}

export function customerObject(body: Record<string, unknown>): StripeObject {
  return {
    id: newId('cus'),
    object: 'customer',
    created: now(),
    email: (body.email as string | undefined) ?? null,
    name: (body.name as string | undefined) ?? null,
    metadata: (body.metadata as Record<string, string> | undefined) ?? {},
    livemode: false,
  };
}

/** An open Checkout Session; `payUrl` is where its checkout page lives (the stand-in's). */
export function sessionObject(body: Record<string, unknown>, payUrl: string): StripeObject {
  const id = `cs_test_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'x')}`;
  return {
    id,
    object: 'checkout.session',
    mode: 'subscription',
    status: 'open',
    payment_status: 'unpaid',
    customer: body.customer ?? null,
    client_reference_id: body.client_reference_id ?? null,
    success_url: body.success_url ?? null,
    cancel_url: body.cancel_url ?? null,
    line_items: body.line_items ?? [],
    subscription_data: body.subscription_data ?? null,
    metadata: body.metadata ?? {},
    subscription: null,
    url: `${payUrl}/checkout/${id}`,
    created: now(),
    expires_at: now() + DAY,
    livemode: false,
  };
}

/** A one-month subscription of one price; the period end lives on the item (current API). */
export function subscriptionObject(customer: string, userId: string, price: string, status: string): StripeObject {
  const start = now();
  return {
    id: newId('sub'),
    object: 'subscription',
    customer,
    status,
    cancel_at_period_end: false,
    cancel_at: null,
    canceled_at: null,
    ended_at: null,
    created: start,
    start_date: start,
    metadata: userId ? { userId } : {},
    items: {
      object: 'list',
      data: [
        {
          id: newId('si'),
          object: 'subscription_item',
          price: { id: price, object: 'price', recurring: { interval: 'month', interval_count: 1 } },
          quantity: 1,
          current_period_start: start,
          current_period_end: start + 30 * DAY,
        },
      ],
      has_more: false,
    },
    livemode: false,
  };
}

/** An invoice of the subscription, in the shape of the current API (parent.subscription_details). */
export function invoiceObject(subscription: StripeObject, status: 'paid' | 'open'): StripeObject {
  const end = periodEndOf(subscription);
  return {
    id: newId('in'),
    object: 'invoice',
    customer: subscription.customer,
    status,
    paid: status === 'paid',
    amount_due: 999,
    amount_paid: status === 'paid' ? 999 : 0,
    currency: 'usd',
    billing_reason: 'subscription_cycle',
    created: now(),
    period_start: end - 30 * DAY,
    period_end: end,
    livemode: false,
    parent: {
      type: 'subscription_details',
      quote_details: null,
      subscription_details: { subscription: subscription.id, metadata: subscription.metadata ?? {} },
    },
    lines: { object: 'list', data: [], has_more: false, url: `/v1/invoices/x/lines` },
  };
}

/** A Stripe Event carrying a snapshot of `object`. */
export function eventObject(type: string, object: Record<string, unknown>, created?: number): StripeObject {
  return {
    id: newId('evt'),
    object: 'event',
    api_version: API_VERSION,
    created: created ?? now(),
    data: { object: structuredClone(object) },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
}
