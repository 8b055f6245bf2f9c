import { z } from 'zod';
import { loadConfig, serviceEnvShape, serviceUrlsShape, SERVICE_REQUIRED_IN_PRODUCTION } from '@msp/config';

const commaList = z.string().transform((value) =>
  value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean),
);

/** `[{ email, username, displayName?, password | passwordHash }]`: the admin accounts (R13). */
const AdminAccountSchema = z
  .object({
    email: z.email(),
    username: z.string().min(3).max(30),
    displayName: z.string().min(1).max(50).optional(),
    password: z.string().min(8).max(128).optional(),
    passwordHash: z.string().startsWith('$argon2').optional(),
  })
  .refine((a) => Boolean(a.password) !== Boolean(a.passwordHash), { message: 'give exactly one of password, passwordHash' });

const adminAccounts = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'ADMIN_ACCOUNTS must be a JSON array' });
      return z.NEVER;
    }
  })
  .pipe(z.array(AdminAccountSchema));
export type AdminAccountConfig = z.infer<typeof AdminAccountSchema>;

export const configShape = {
  ...serviceEnvShape('identity'),
  ...serviceUrlsShape,
  /** Issuer claim of access tokens. */
  JWT_ISSUER: z.string().min(1).default('msp-identity'),
  ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(1800),
  REFRESH_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).default(2_592_000),
  CAPTCHA_ENABLED: z.stringbool().default(false),
  CAPTCHA_BYPASS_TOKEN: z.string().optional(),
  ADMIN_ACCOUNTS: adminAccounts.default([]),

  /**
   * smtp(s)://user:pass@host:port. Required in production (login needs a verified e-mail, so mail
   * must leave); elsewhere, without it, mails are written as .eml files to MAIL_DIR (development).
   */
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().min(3).default('Music Platform <no-reply@localhost>'),
  /** Development only (no SMTP_URL): a writable folder for the .eml files, relative to the working directory. */
  MAIL_DIR: z.string().min(1).default('.data/mail'),
  MAIL_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  /** How often the account-export assembler looks for exports to build, expire or sweep (a part's arrival wakes it at once). */
  EXPORT_POLL_MS: z.coerce.number().int().min(50).max(600_000).default(10_000),
  MAIL_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(8),

  /** Failed logins per client address per 15 min before 429 (R13). */
  LOGIN_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).default(10),
  /**
   * Failed logins per account before its backoff starts (30 s, doubling per further failure, at
   * most 15 min; known devices pass). See the README, "Abuse policy".
   */
  LOGIN_FAILURES_PER_ACCOUNT: z.coerce.number().int().min(1).default(5),
  /** Failed logins from one known device per 15 min before it stops passing the limits. */
  LOGIN_FAILURES_PER_KNOWN_DEVICE: z.coerce.number().int().min(1).default(5),
  FORGOT_PASSWORD_PER_ADDRESS_PER_HOUR: z.coerce.number().int().min(1).default(5),
  /** Reset mails (AUTH-8) one account receives per hour at most; later requests send nothing. */
  RESET_MAILS_PER_ACCOUNT_PER_HOUR: z.coerce.number().int().min(1).default(3),
  /** Verification mails (registration + AUTH-7) one account receives per hour at most. */
  VERIFICATION_MAILS_PER_ACCOUNT_PER_HOUR: z.coerce.number().int().min(1).default(5),

  GOOGLE_CLIENT_ID: z.string().optional(),
  GOOGLE_CLIENT_SECRET: z.string().optional(),
  GOOGLE_JWKS_URL: z.url().default('https://www.googleapis.com/oauth2/v3/certs'),
  GOOGLE_ISSUERS: commaList.default(['https://accounts.google.com', 'accounts.google.com']),
  GOOGLE_AUTH_URL: z.url().default('https://accounts.google.com/o/oauth2/v2/auth'),
  GOOGLE_TOKEN_URL: z.url().default('https://oauth2.googleapis.com/token'),

  /**
   * Public, unsigned base URL of the bucket's objects (avatars and covers, R4). Defaults to the
   * path-style bucket URL on S3_ENDPOINT; in a cluster point it at the CDN or ingress of the bucket.
   */
  MEDIA_PUBLIC_BASE_URL: z.url().optional(),
  IMAGE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(10 * 1024 * 1024),
  /** Timeout of calls to social and billing. */
  PEER_TIMEOUT_MS: z.coerce.number().int().min(50).max(5000).default(1000),

  /**
   * Two-factor sign-in and passkeys (docs/account-security.md). MFA_ENCRYPTION_KEY encrypts the
   * stored TOTP secrets (AES-256-GCM, key = SHA-256 of it); required in production, where it must
   * never change (rotating it makes every enrolled authenticator unreadable). Elsewhere a key derived
   * from GATEWAY_ASSERTION_KEY is used, and a fixed development key when neither is set.
   */
  MFA_ENCRYPTION_KEY: z.string().min(32).optional(),
  /** Issuer shown by authenticator apps, and the WebAuthn relying-party name. */
  MFA_ISSUER: z.string().min(1).max(64).default('Music Platform'),
  /** WebAuthn relying-party id (a domain); defaults to the host of WEB_BASE_URL. */
  WEBAUTHN_RP_ID: z.string().min(1).optional(),
  /** Origins passkey ceremonies may come from; default: the origins of WEB_BASE_URL and PUBLIC_BASE_URL. */
  WEBAUTHN_ORIGINS: commaList.optional(),
  /**
   * ACC-3 (docs/account-control.md): how long an account deleted by its owner can still be restored:
   * a number with a unit `s`, `m`, `h` or `d` (`30d`, `90s`). Parsed into seconds.
   */
  ACCOUNT_DELETION_GRACE: z
    .string()
    .trim()
    .regex(/^\d{1,7}(s|m|h|d)$/, 'a number with a unit s, m, h or d, e.g. 30d')
    .default('30d')
    .transform((value) => Number(value.slice(0, -1)) * { s: 1, m: 60, h: 3600, d: 86_400 }[value.slice(-1) as 's' | 'm' | 'h' | 'd']),
  /** How often the grace worker looks for accounts whose grace has passed. */
  ACCOUNT_DELETION_POLL_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
} as const;

export const requiredEnv = [
  ...SERVICE_REQUIRED_IN_PRODUCTION,
  // Mail must leave (verification before login): no file fallback in production.
  'SMTP_URL',
  // Avatars and covers are linked there: the object store's internal host is not reachable by browsers.
  'MEDIA_PUBLIC_BASE_URL',
  // The admin accounts (R13), from a Secret; `[]` is an explicit "none".
  'ADMIN_ACCOUNTS',
  // TOTP secrets must stay readable when the fleet's other keys rotate: a key of its own.
  'MFA_ENCRYPTION_KEY',
] as const;

export type IdentityConfig = ReturnType<typeof loadIdentityConfig>;

export function loadIdentityConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(configShape, { env, requiredInProduction: requiredEnv });
}
