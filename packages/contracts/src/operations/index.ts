import { IDENTITY_ACCOUNTS } from './identity/accounts.js';
import { IDENTITY_APPS } from './identity/apps.js';
import { IDENTITY_DELETION } from './identity/deletion.js';
import { IDENTITY_EXPORTS } from './identity/exports.js';
import { IDENTITY_IMAGES } from './identity/images.js';
import { IDENTITY_MFA } from './identity/mfa.js';
import { IDENTITY_MODERATION } from './identity/moderation.js';
import { IDENTITY_OAUTH_SERVER } from './identity/oauth-server.js';
import { IDENTITY_OAUTH } from './identity/oauth.js';
import { IDENTITY_PASSKEYS } from './identity/passkeys.js';
import { IDENTITY_PROFILES } from './identity/profiles.js';
import { IDENTITY_SECURITY } from './identity/security.js';
import { IDENTITY_SESSIONS } from './identity/sessions.js';
import { CATALOG_ANALYTICS } from './catalog/analytics.js';
import { CATALOG_DISCOVERY } from './catalog/discovery.js';
import { CATALOG_EMBED } from './catalog/embed.js';
import { CATALOG_GENRES } from './catalog/genres.js';
import { CATALOG_INSIGHTS } from './catalog/insights.js';
import { CATALOG_MEDIA } from './catalog/media.js';
import { CATALOG_PLAYLISTS } from './catalog/playlists.js';
import { CATALOG_SOUND } from './catalog/sound.js';
import { CATALOG_TRACKS } from './catalog/tracks.js';
import { SOCIAL_BLOCKS } from './social/blocks.js';
import { SOCIAL_COMMENTS } from './social/comments.js';
import { SOCIAL_ENGAGEMENT } from './social/engagement.js';
import { SOCIAL_FEED } from './social/feed.js';
import { SOCIAL_FOLLOWS } from './social/follows.js';
import { SOCIAL_REPORTS } from './social/reports.js';
import { MESSAGING_CONVERSATIONS } from './messaging/conversations.js';
import { NOTIFICATION_NOTIFICATIONS } from './notification/notifications.js';
import { NOTIFICATION_PREFERENCES } from './notification/preferences.js';
import { NOTIFICATION_PUSH } from './notification/push.js';
import { NOTIFICATION_WEBHOOKS } from './notification/webhooks.js';
import { BILLING_SUBSCRIPTIONS } from './billing/subscriptions.js';
import { BILLING_WEBHOOKS } from './billing/webhooks.js';
import { OPERATION_SCHEMA_PARTS, type OperationDeclaration, type OperationSchema } from '../operation-schema.js';

// Each module file may also export the schemas and types its service's code needs beside the routes.
export * from './identity/accounts.js';
export * from './identity/apps.js';
export * from './identity/deletion.js';
export * from './identity/exports.js';
export * from './identity/images.js';
export * from './identity/mfa.js';
export * from './identity/moderation.js';
export * from './identity/oauth-server.js';
export * from './identity/oauth.js';
export * from './identity/passkeys.js';
export * from './identity/profiles.js';
export * from './identity/security.js';
export * from './identity/sessions.js';
export * from './catalog/analytics.js';
export * from './catalog/discovery.js';
export * from './catalog/embed.js';
export * from './catalog/genres.js';
export * from './catalog/insights.js';
export * from './catalog/media.js';
export * from './catalog/playlists.js';
export * from './catalog/sound.js';
export * from './catalog/tracks.js';
export * from './social/blocks.js';
export * from './social/comments.js';
export * from './social/engagement.js';
export * from './social/feed.js';
export * from './social/follows.js';
export * from './social/reports.js';
export * from './messaging/conversations.js';
export * from './notification/notifications.js';
export * from './notification/preferences.js';
export * from './notification/push.js';
export * from './notification/webhooks.js';
export { WEBSOCKET_ROUTES } from './notification/realtime.js';
export * from './billing/subscriptions.js';
export * from './billing/webhooks.js';

/** Every module's operations, one group per module (a test checks that no id is in two). */
export const OPERATION_GROUPS = {
  IDENTITY_ACCOUNTS,
  IDENTITY_APPS,
  IDENTITY_DELETION,
  IDENTITY_EXPORTS,
  IDENTITY_IMAGES,
  IDENTITY_MFA,
  IDENTITY_MODERATION,
  IDENTITY_OAUTH_SERVER,
  IDENTITY_OAUTH,
  IDENTITY_PASSKEYS,
  IDENTITY_PROFILES,
  IDENTITY_SECURITY,
  IDENTITY_SESSIONS,
  CATALOG_ANALYTICS,
  CATALOG_DISCOVERY,
  CATALOG_EMBED,
  CATALOG_GENRES,
  CATALOG_INSIGHTS,
  CATALOG_MEDIA,
  CATALOG_PLAYLISTS,
  CATALOG_SOUND,
  CATALOG_TRACKS,
  SOCIAL_BLOCKS,
  SOCIAL_COMMENTS,
  SOCIAL_ENGAGEMENT,
  SOCIAL_FEED,
  SOCIAL_FOLLOWS,
  SOCIAL_REPORTS,
  MESSAGING_CONVERSATIONS,
  NOTIFICATION_NOTIFICATIONS,
  NOTIFICATION_PREFERENCES,
  NOTIFICATION_PUSH,
  NOTIFICATION_WEBHOOKS,

  BILLING_SUBSCRIPTIONS,
  BILLING_WEBHOOKS,
} as const;

/** Every public operation but the websocket (WEBSOCKET_ROUTES), by operation id: its row, input and output. */
export const OPERATIONS = {
  ...IDENTITY_ACCOUNTS,
  ...IDENTITY_APPS,
  ...IDENTITY_DELETION,
  ...IDENTITY_EXPORTS,
  ...IDENTITY_IMAGES,
  ...IDENTITY_MFA,
  ...IDENTITY_MODERATION,
  ...IDENTITY_OAUTH_SERVER,
  ...IDENTITY_OAUTH,
  ...IDENTITY_PASSKEYS,
  ...IDENTITY_PROFILES,
  ...IDENTITY_SECURITY,
  ...IDENTITY_SESSIONS,
  ...CATALOG_ANALYTICS,
  ...CATALOG_DISCOVERY,
  ...CATALOG_EMBED,
  ...CATALOG_GENRES,
  ...CATALOG_INSIGHTS,
  ...CATALOG_MEDIA,
  ...CATALOG_PLAYLISTS,
  ...CATALOG_SOUND,
  ...CATALOG_TRACKS,
  ...SOCIAL_BLOCKS,
  ...SOCIAL_COMMENTS,
  ...SOCIAL_ENGAGEMENT,
  ...SOCIAL_FEED,
  ...SOCIAL_FOLLOWS,
  ...SOCIAL_REPORTS,
  ...MESSAGING_CONVERSATIONS,
  ...NOTIFICATION_NOTIFICATIONS,
  ...NOTIFICATION_PREFERENCES,
  ...NOTIFICATION_PUSH,
  ...NOTIFICATION_WEBHOOKS,
  ...BILLING_SUBSCRIPTIONS,
  ...BILLING_WEBHOOKS,
};

export type OperationId = keyof typeof OPERATIONS;

const SCHEMAS = new Map<string, OperationSchema>(
  Object.entries(OPERATIONS as Readonly<Record<string, OperationDeclaration>>).map(([id, declared]) => [
    id,
    Object.fromEntries(OPERATION_SCHEMA_PARTS.filter((part) => declared[part] !== undefined).map((part) => [part, declared[part]])),
  ]),
);

const NO_SCHEMA: OperationSchema = Object.freeze({});

/** The declared schema (input and output) of an operation id, always the same object; `{}` for the websocket. */
export function operationSchema(id: string): OperationSchema {
  return SCHEMAS.get(id) ?? NO_SCHEMA;
}
