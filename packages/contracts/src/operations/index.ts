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
import { NOTIFICATION_REALTIME } from './notification/realtime.js';
import { BILLING_SUBSCRIPTIONS } from './billing/subscriptions.js';
import { BILLING_WEBHOOKS } from './billing/webhooks.js';
import type { OperationSchema } from '../operation-schema.js';

/** Every module's operation schemas, one group per module (a test checks that no id is in two). */
export const OPERATION_SCHEMA_GROUPS = {
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
  NOTIFICATION_REALTIME,
  BILLING_SUBSCRIPTIONS,
  BILLING_WEBHOOKS,
} as const;

/** The input and output of every public operation, by operation id. */
export const OPERATION_SCHEMAS = {
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
  ...NOTIFICATION_REALTIME,
  ...BILLING_SUBSCRIPTIONS,
  ...BILLING_WEBHOOKS,
};

export type OperationId = keyof typeof OPERATION_SCHEMAS;

/** The declared schema of an operation id; `{}` for an operation with no declared input or output. */
export function operationSchema(id: string): OperationSchema {
  return (OPERATION_SCHEMAS as Readonly<Record<string, OperationSchema>>)[id] ?? {};
}
