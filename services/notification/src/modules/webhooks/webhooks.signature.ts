import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new endpoint secret (shown once, at APP-18). */
export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64url')}`;

/** `Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>`. */
export function signWebhook(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/**
 * The receiver's check (also the one the docs show): the header parses, a v1 matches in constant
 * time, and t is within `toleranceSeconds` of now (replays of old deliveries are refused).
 */
export function verifyWebhookSignature(
  secret: string,
  body: string,
  header: string | undefined,
  nowSeconds = Math.floor(Date.now() / 1000),
  toleranceSeconds = 300,
): boolean {
  if (!header) return false;
  const parts = header.split(',').map((p) => p.trim().split('='));
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.${body}`).digest('hex'));
  return parts
    .filter(([k]) => k === 'v1')
    .some(([, v]) => {
      const given = Buffer.from(v ?? '');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}
