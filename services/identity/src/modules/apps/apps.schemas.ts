import { z } from 'zod';
import { APP_SCOPES } from '@msp/contracts';

export const MAX_APPS_PER_USER = 10;
const MAX_REDIRECT_URIS = 10;

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '127.0.0.1' || host === '[::1]';
}

/**
 * A redirect URI an app may register: absolute https, or http on a loopback host (native and
 * development clients), no fragment, no credentials. The authorization request must repeat one
 * of them exactly.
 */
export const RedirectUriSchema = z
  .string()
  .trim()
  .min(1)
  .max(500)
  .refine((value) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return false;
    }
    if (url.hash || url.username || url.password || value.includes('#')) return false;
    return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url.hostname));
  }, 'must be an absolute https URL (or http on localhost) without a fragment');

const HomepageSchema = z
  .string()
  .trim()
  .max(500)
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'https:' || url.protocol === 'http:';
    } catch {
      return false;
    }
  }, 'must be an http(s) URL');

const NameSchema = z.string().trim().min(1).max(100);
const RedirectUrisSchema = z.array(RedirectUriSchema).min(1).max(MAX_REDIRECT_URIS);

export const CreateAppBodySchema = z.object({
  name: NameSchema,
  redirectUris: RedirectUrisSchema,
  homepageUrl: HomepageSchema.nullable().optional(),
  /** A server-side app that can keep a secret; public apps (SPA, mobile) use PKCE alone. */
  confidential: z.boolean(),
});
export type CreateAppBody = z.infer<typeof CreateAppBodySchema>;

export const UpdateAppBodySchema = z
  .object({ name: NameSchema.optional(), redirectUris: RedirectUrisSchema.optional(), homepageUrl: HomepageSchema.nullable().optional() })
  .refine((body) => body.name !== undefined || body.redirectUris !== undefined || body.homepageUrl !== undefined, 'nothing to update');
export type UpdateAppBody = z.infer<typeof UpdateAppBodySchema>;

export const AppSchema = z.object({
  id: z.number().int(),
  clientId: z.string(),
  name: z.string(),
  redirectUris: z.array(z.string()),
  homepageUrl: z.string().nullable(),
  confidential: z.boolean(),
  isSuspended: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type AppView = z.infer<typeof AppSchema>;

/** APP-1: the app and its secret, shown this once (null for a public app). */
export const CreatedAppSchema = AppSchema.extend({ clientSecret: z.string().nullable() });

export const AppSecretSchema = z.object({ clientId: z.string(), clientSecret: z.string() });

export const AuthorizedAppSchema = z.object({
  clientId: z.string(),
  name: z.string(),
  homepageUrl: z.string().nullable(),
  scopes: z.array(z.enum(APP_SCOPES)),
  authorizedAt: z.string(),
  isSuspended: z.boolean(),
});
export type AuthorizedApp = z.infer<typeof AuthorizedAppSchema>;

export const ClientIdParamSchema = z.object({ clientId: z.string().min(1).max(100) });

/** A UTC calendar day, `YYYY-MM-DD`. */
const DaySchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine((value) => {
    const parsed = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
  }, 'must be a valid calendar date');

/** APP-17: an inclusive range of UTC days; `to` defaults to today, `from` to 29 days before `to`. */
export const UsageQuerySchema = z.object({ from: DaySchema.optional(), to: DaySchema.optional() });

/** How many top operations APP-17 lists. */
export const TOP_ROUTES = 10;

export const AppUsageSchema = z.object({
  appId: z.number().int(),
  clientId: z.string(),
  from: z.string(),
  to: z.string(),
  totals: z.object({ requests: z.number().int(), rateLimited: z.number().int() }),
  /** Every day of the range, oldest first, zeros included. */
  days: z.array(z.object({ date: z.string(), requests: z.number().int(), rateLimited: z.number().int() })),
  /** The most called operations over the range, most first (at most TOP_ROUTES). */
  topRoutes: z.array(z.object({ operationId: z.string(), requests: z.number().int() })),
});
export type AppUsage = z.infer<typeof AppUsageSchema>;
