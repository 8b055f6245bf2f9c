/**
 * Runs the Stripe stand-in on its own (`pnpm --filter @msp/billing stripe:stand-in`); `pnpm dev`
 * starts the same server itself. It answers billing's Stripe calls on 127.0.0.1:12111 and delivers
 * signed events to the gateway's webhook (the first argument, default
 * http://127.0.0.1:8080/api/webhook/stripe) when a checkout URL is opened or stripe:trigger runs.
 */
import { DEV_STRIPE, loadBillingConfig } from '../config.js';
import { startStripeStandIn } from './stripe-stand-in.js';

const config = loadBillingConfig();
const webhookUrl = process.argv[2] ?? 'http://127.0.0.1:8080/api/webhook/stripe';
const standIn = await startStripeStandIn({
  secretKey: config.STRIPE_SECRET_KEY,
  webhookSecret: config.STRIPE_WEBHOOK_SECRET,
  webhookUrl,
  autoDeliver: true,
  port: config.STRIPE_API_PORT ?? DEV_STRIPE.port,
});
console.log(`Stripe stand-in on ${standIn.url}; webhooks to ${webhookUrl}`);
const stop = () => void standIn.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
