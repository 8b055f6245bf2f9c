import { Counter } from 'prom-client';

/*
 * Identity's counters, in prom-client's default registry, so packages/http's /metrics serves them
 * beside the request durations. Module-level on purpose: a registry refuses a second metric of
 * the same name, and tests build several apps in one process.
 */

/**
 * Every AUTH-1/MOD-1 attempt by outcome: `success`, `invalid_credentials`, `throttled_account`,
 * `throttled_address`. The global failure rate (credential stuffing across many accounts and
 * addresses, which no per-key limit sees) is an alert on
 * `sum(rate(identity_login_attempts_total{outcome!="success"}[5m]))` over its usual level.
 */
export const loginAttempts = new Counter({
  name: 'identity_login_attempts_total',
  help: 'Password login attempts by outcome (success, invalid_credentials, throttled_account, throttled_address)',
  labelNames: ['outcome'] as const,
});

/** AUTH-7/AUTH-8 requests as the worker settled them: `sent`, `capped` (per-account cap), `none` (no mail due). */
export const mailRequests = new Counter({
  name: 'identity_mail_requests_total',
  help: 'Verification (AUTH-7) and password reset (AUTH-8) requests by kind and outcome (sent, capped, none)',
  labelNames: ['kind', 'outcome'] as const,
});
