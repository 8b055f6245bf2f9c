import type { AppScope } from './route-types.js';

/**
 * What an app's access token (docs/developer-platform.md) may call: the scope each operation of
 * `ROUTES` needs (the `scope` of its declaration under operations/). The gateway checks it on every request that carries an app token (a token with
 * `azp`), on the proxy route and the fast lane alike; a user's own session token is not affected.
 *
 * - `read`: reading (always granted with any app token);
 * - `write`: uploading and editing the user's own content (tracks, playlists, profile);
 * - `engage`: likes, reposts, follows, blocks, comments, reports;
 * - `messages`: direct messages (reading them too);
 * - `webhooks`: reserved for app webhooks (no operation needs it yet).
 *
 * An operation without a scope, or with `closed`, is never reachable with an app token (403
 * INSUFFICIENT_SCOPE): account security, sessions, two-factor, e-mail, role and tier, billing,
 * device tokens, the app registry itself and every admin route. Operations with auth `none` ignore
 * tokens entirely and need none.
 */
export const APP_SCOPES = ['read', 'write', 'engage', 'messages', 'webhooks'] as const satisfies readonly AppScope[];

/** The scope granted when an authorization request names none, and always added to a grant. */
export const DEFAULT_APP_SCOPE: AppScope = 'read';
