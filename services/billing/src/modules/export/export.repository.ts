import { sql } from '@msp/db';
import { pages } from '@msp/runtime';
import type { SqlExecutor } from '@msp/events';

/**
 * Billing's part of an account export (ACC-1, docs/account-control.md "Export"): the subscription and
 * the invoices billing received from the payment provider (invoice.* webhooks of the user's
 * customers; the latest state of each invoice).
 */
export class BillingExportRepository {
  constructor(private readonly db: SqlExecutor) {}

  sections(userId: number) {
    return {
      subscription: pages<unknown>(async (last) =>
        last
          ? []
          : this.db.$queryRaw(
              sql`SELECT status, plan, current_period_end AS "currentPeriodEnd", cancel_at_period_end AS "cancelAtPeriodEnd",
                      created_at AS "createdAt", updated_at AS "updatedAt"
                 FROM subscriptions WHERE user_id = ${userId}`,
            ),
      ),
      invoices: pages<unknown>(async (last) =>
        last
          ? []
          : this.db.$queryRaw(
              sql`SELECT DISTINCT ON (e.payload->'data'->'object'->>'id')
                      e.payload->'data'->'object'->>'id' AS id, e.payload->'data'->'object'->>'status' AS status,
                      (e.payload->'data'->'object'->>'amount_due')::bigint AS "amountDue", (e.payload->'data'->'object'->>'amount_paid')::bigint AS "amountPaid",
                      e.payload->'data'->'object'->>'currency' AS currency,
                      to_timestamp((e.payload->'data'->'object'->>'period_start')::bigint) AS "periodStart",
                      to_timestamp((e.payload->'data'->'object'->>'period_end')::bigint) AS "periodEnd",
                      to_timestamp((e.payload->'data'->'object'->>'created')::bigint) AS "createdAt"
                 FROM provider_events e
                WHERE e.type LIKE 'invoice.%'
                  AND e.payload->'data'->'object'->>'customer' IN (
                        SELECT provider_customer_id FROM billing_customers WHERE user_id = ${userId}
                        UNION SELECT provider_customer_id FROM subscriptions WHERE user_id = ${userId} AND provider_customer_id IS NOT NULL)
                ORDER BY e.payload->'data'->'object'->>'id', e.created_at DESC`,
            ),
      ),
    };
  }
}
