import { z } from 'zod';
import { loadConfig, serviceEnvShape, serviceUrlsShape, SERVICE_REQUIRED_IN_PRODUCTION } from '@msp/config';

/**
 * Development values of the payment provider: they only work against the local stand-in of the
 * Stripe API (`src/dev/stripe-stand-in.ts`), which `pnpm dev` starts on 127.0.0.1:12111.
 * Production must set all of them (see requiredEnv).
 */
export const DEV_STRIPE = {
  secretKey: 'sk_test_msp_local_stand_in',
  webhookSecret: 'whsec_msp_local_stand_in',
  priceId: 'price_msp_pro_monthly',
  host: '127.0.0.1',
  port: 12111,
} as const;

export const configShape = {
  ...serviceEnvShape('billing'),
  ...serviceUrlsShape,
  /** Stripe API key (sk_live_... / sk_test_...). */
  STRIPE_SECRET_KEY: z.string().min(1).default(DEV_STRIPE.secretKey),
  /** Signing secret of the webhook endpoint (whsec_...): SUB-5 verifies Stripe-Signature with it. */
  STRIPE_WEBHOOK_SECRET: z.string().min(1).default(DEV_STRIPE.webhookSecret),
  /** The recurring price of the Pro plan (price_...). */
  STRIPE_PRICE_ID: z.string().min(1).default(DEV_STRIPE.priceId),
  /**
   * Where the Stripe library sends API calls (its host, port and protocol options). Unset in
   * production: the library's own api.stripe.com:443 over https. Unset elsewhere: the local
   * stand-in (see stripeApiAddress).
   */
  STRIPE_API_HOST: z.string().min(1).optional(),
  STRIPE_API_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  STRIPE_API_PROTOCOL: z.enum(['http', 'https']).optional(),
  /** Per-request timeout of Stripe API calls (SUB-2/3/4 wait for them). */
  STRIPE_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** R17: a signature older than this is refused. */
  STRIPE_WEBHOOK_TOLERANCE_SECONDS: z.coerce.number().int().min(1).max(3600).default(300),
  /**
   * Processed webhook events are kept this long (their ids catch redeliveries): longer than the
   * 3 days Stripe keeps retrying an event.
   */
  WEBHOOK_RETENTION_DAYS: z.coerce.number().int().min(4).max(3650).default(30),
  /** How often the webhook worker looks for stored events (receipt also wakes it at once). */
  WEBHOOK_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
} as const;

export const requiredEnv = [
  ...SERVICE_REQUIRED_IN_PRODUCTION,
  // The development defaults only talk to the local stand-in: a cluster must never use them.
  'STRIPE_SECRET_KEY',
  'STRIPE_WEBHOOK_SECRET',
  'STRIPE_PRICE_ID',
] as const;

export type BillingConfig = ReturnType<typeof loadBillingConfig>;

export function loadBillingConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(configShape, { env, requiredInProduction: requiredEnv });
}

export interface StripeApiAddress {
  host?: string;
  port?: number;
  protocol?: 'http' | 'https';
}

/**
 * The Stripe API address the library is given: what is configured, else Stripe itself in
 * production and the local stand-in (http://127.0.0.1:12111) everywhere else.
 */
export function stripeApiAddress(config: BillingConfig): StripeApiAddress {
  const production = config.NODE_ENV === 'production';
  const address: StripeApiAddress = {
    host: config.STRIPE_API_HOST ?? (production ? undefined : DEV_STRIPE.host),
    port: config.STRIPE_API_PORT ?? (production ? undefined : DEV_STRIPE.port),
    protocol: config.STRIPE_API_PROTOCOL ?? (production ? undefined : 'http'),
  };
  return Object.fromEntries(Object.entries(address).filter(([, v]) => v !== undefined)) as StripeApiAddress;
}
