/**
 * Sends a signed test event to the local webhook, as `stripe trigger` does against a test account:
 *
 *   pnpm --filter @msp/billing stripe:trigger checkout.session.completed --user 12
 *   pnpm --filter @msp/billing stripe:trigger customer.subscription.created --user 12
 *
 * The stand-in that `pnpm dev` runs builds the event from its own objects (creating the user's
 * customer and subscription when needed), signs it with the webhook secret and POSTs it to
 * billing's webhook through the gateway (http://localhost:8080/api/webhook/stripe).
 * Options: --stand-in <url> (default http://127.0.0.1:12111).
 */
import { parseArgs } from 'node:util';
import { DEV_STRIPE } from '../config.js';
import { TRIGGER_TYPES } from './stripe-stand-in.js';

const usage = `usage: stripe:trigger <${TRIGGER_TYPES.join('|')}> --user <userId> [--stand-in <url>]`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { user: { type: 'string' }, 'stand-in': { type: 'string' } },
});
const type = positionals[0];
const userId = Number(values.user);
if (!type || !(TRIGGER_TYPES as readonly string[]).includes(type) || !Number.isInteger(userId) || userId < 1) {
  console.error(usage);
  process.exit(2);
}
const standIn = values['stand-in'] ?? `http://${DEV_STRIPE.host}:${DEV_STRIPE.port}`;
let res: Response;
try {
  res = await fetch(`${standIn}/_stand-in/trigger`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type, userId }),
    signal: AbortSignal.timeout(15_000),
  });
} catch (err) {
  console.error(`The Stripe stand-in does not answer at ${standIn} (is \`pnpm dev\` running?): ${(err as Error).message}`);
  process.exit(1);
}
const body = (await res.json()) as { eventId?: string; webhookUrl?: string | null; webhookStatus?: number | null; error?: { message: string } };
if (!res.ok) {
  console.error(body.error?.message ?? `stand-in answered ${res.status}`);
  process.exit(1);
}
console.log(`${type} ${body.eventId} for user ${userId} → ${body.webhookUrl ?? '(no webhook URL)'}: ${body.webhookStatus ?? 'not delivered'}`);
process.exit(body.webhookStatus === 200 ? 0 : 1);
