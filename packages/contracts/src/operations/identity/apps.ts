import { z } from 'zod';
import type { Operations } from '../../operation-schema.js';
import { pageSchema } from '../../records/page.js';
import { IdParamSchema, PageQuerySchema } from '../../records/request.js';
import { APP_SCOPES } from '../../app-scopes.js';

const MAX_REDIRECT_URIS = 10;

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '127.0.0.1' || host === '[::1]';
}

/**
 * A redirect URI an app may register: absolute https, or http on a loopback host (native and
 * development clients), no fragment, no credentials. The authorization request must repeat one
 * of them exactly.
 */
const RedirectUriSchema = z
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

const CreateAppBodySchema = z.object({
  name: NameSchema,
  redirectUris: RedirectUrisSchema,
  homepageUrl: HomepageSchema.nullable().optional(),
  /** A server-side app that can keep a secret; public apps (SPA, mobile) use PKCE alone. */
  confidential: z.boolean(),
});
export type CreateAppBody = z.infer<typeof CreateAppBodySchema>;

const UpdateAppBodySchema = z
  .object({ name: NameSchema.optional(), redirectUris: RedirectUrisSchema.optional(), homepageUrl: HomepageSchema.nullable().optional() })
  .refine((body) => body.name !== undefined || body.redirectUris !== undefined || body.homepageUrl !== undefined, 'nothing to update');
export type UpdateAppBody = z.infer<typeof UpdateAppBodySchema>;

const AppSchema = z.object({
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
const CreatedAppSchema = AppSchema.extend({ clientSecret: z.string().nullable() });

const AppSecretSchema = z.object({ clientId: z.string(), clientSecret: z.string() });

const AuthorizedAppSchema = z.object({
  clientId: z.string(),
  name: z.string(),
  homepageUrl: z.string().nullable(),
  scopes: z.array(z.enum(APP_SCOPES)),
  authorizedAt: z.string(),
  isSuspended: z.boolean(),
});
export type AuthorizedApp = z.infer<typeof AuthorizedAppSchema>;

const ClientIdParamSchema = z.object({ clientId: z.string().min(1).max(100) });

/** A UTC calendar day, `YYYY-MM-DD`. */
const DaySchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine((value) => {
    const parsed = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
  }, 'must be a valid calendar date');

/** APP-17: an inclusive range of UTC days; `to` defaults to today, `from` to 29 days before `to`. */
const AppUsageQuerySchema = z.object({ from: DaySchema.optional(), to: DaySchema.optional() });

const AppUsageSchema = z.object({
  appId: z.number().int(),
  clientId: z.string(),
  from: z.string(),
  to: z.string(),
  totals: z.object({ requests: z.number().int(), rateLimited: z.number().int() }),
  /** Every day of the range, oldest first, zeros included. */
  days: z.array(z.object({ date: z.string(), requests: z.number().int(), rateLimited: z.number().int() })),
  /** The most called operations over the range, most first (at most TOP_ROUTES in identity's apps service). */
  topRoutes: z.array(z.object({ operationId: z.string(), requests: z.number().int() })),
});
export type AppUsage = z.infer<typeof AppUsageSchema>;

const appIdParams = IdParamSchema('appId');
const app = { 200: AppSchema };

/** The operations of identity's apps module (services/identity/src/modules/apps): contract row, input and output. */
export const IDENTITY_APPS = {
  'APP-1': {
    // APP: third-party apps and the OAuth 2.1 authorization server (docs/developer-platform.md)
    method: 'POST',
    path: '/apps',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Register an app',
    // WS: the handshake itself does not fail on auth; the STOMP CONNECT frame is refused with an

    // APP: the OAuth endpoints (APP-13…15) answer RFC 6749 errors with these codes beside them.
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN'],

    body: CreateAppBodySchema,
    response: { 201: CreatedAppSchema },
  },
  'APP-2': {
    method: 'GET',
    path: '/apps',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'Apps of the current user',
    errors: ['UNAUTHORIZED'],
    querystring: PageQuerySchema,
    response: { 200: pageSchema(AppSchema) },
  },
  'APP-3': {
    method: 'GET',
    path: '/apps/{appId}',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'One app of the current user',
    errors: ['UNAUTHORIZED', 'RESOURCE_NOT_FOUND'],

    params: appIdParams,
    response: app,
  },
  'APP-4': {
    method: 'PATCH',
    path: '/apps/{appId}',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Update an app',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNAUTHORIZED', 'RESOURCE_NOT_FOUND'],

    params: appIdParams,
    body: UpdateAppBodySchema,
    response: app,
  },
  'APP-5': {
    method: 'DELETE',
    path: '/apps/{appId}',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'Delete an app',
    errors: ['UNAUTHORIZED', 'RESOURCE_NOT_FOUND'],

    params: appIdParams,
  },
  'APP-6': {
    method: 'POST',
    path: '/apps/{appId}/secret',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'Rotate the client secret',
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED', 'RESOURCE_NOT_FOUND'],

    params: appIdParams,
    response: { 200: AppSecretSchema },
  },
  'APP-7': {
    method: 'POST',
    path: '/admin/apps/{appId}/suspend',
    auth: 'admin',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'Suspend an app (admin only)',
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'RESOURCE_NOT_FOUND'],

    params: appIdParams,
    response: app,
  },
  'APP-8': {
    method: 'POST',
    path: '/admin/apps/{appId}/unsuspend',
    auth: 'admin',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'Unsuspend an app (admin only)',
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'RESOURCE_NOT_FOUND'],

    params: appIdParams,
    response: app,
  },
  'APP-9': {
    method: 'GET',
    path: '/users/me/authorized-apps',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'Apps the current user authorized',
    errors: ['UNAUTHORIZED'],

    querystring: PageQuerySchema,
    response: { 200: pageSchema(AuthorizedAppSchema) },
  },
  'APP-10': {
    method: 'DELETE',
    path: '/users/me/authorized-apps/{clientId}',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'Revoke an app authorization',
    errors: ['UNAUTHORIZED', 'RESOURCE_NOT_FOUND'],

    params: ClientIdParamSchema,
  },
  'APP-17': {
    method: 'GET',
    path: '/apps/{appId}/usage',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'none',
    summary: "An app's API usage per day (owner only)",
    // APP-17: the app's owner only (anyone else: 404); a bad or too long date range is a 400 with field errors.
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED', 'RESOURCE_NOT_FOUND'],
    description:
      'Requests and 429 answers per UTC day as the gateway counted them (app tokens only), and the most called operations. ' +
      '`from`/`to` are inclusive UTC days (`YYYY-MM-DD`); `to` defaults to today and `from` to 29 days before it; at most 90 days back.',
    params: appIdParams,
    querystring: AppUsageQuerySchema,
    response: { 200: AppUsageSchema },
  },
} satisfies Operations;
