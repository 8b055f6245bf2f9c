import { z } from 'zod';
import { defineEvent } from '../envelope.js';

/**
 * Identity's third-party apps and their grants (docs/developer-platform.md), for the services that
 * keep a copy of them (notification: webhooks). Published through identity's outbox in the
 * transaction that changes the app or grant.
 */

const Id = z.number().int().positive();

/**
 * The app as others copy it. `version` is the app row's `updatedAt` (ISO): a consumer keeps the
 * newest and ignores an older one redelivered late.
 */
export const AppSnapshotSchema = z.object({
  appId: Id,
  clientId: z.string(),
  ownerId: Id,
  name: z.string(),
  suspended: z.boolean(),
  version: z.string(),
});
export type AppSnapshot = z.infer<typeof AppSnapshotSchema>;

/** APP-1. */
export const AppRegistered = defineEvent('identity.app.registered.v1', AppSnapshotSchema);
/** APP-4 (name, redirect URIs, homepage). */
export const AppUpdated = defineEvent('identity.app.updated.v1', AppSnapshotSchema);
/** APP-7 / APP-8: `suspended` says which. */
export const AppSuspended = defineEvent('identity.app.suspended.v1', AppSnapshotSchema);
/** APP-5: final; every grant of the app ended with it. */
export const AppDeleted = defineEvent('identity.app.deleted.v1', z.object({ appId: Id, ownerId: Id }));

/**
 * A user approved the app on the consent page (APP-12): one grant, with the scopes approved. A grant
 * only ever ends (`AppGrantRevoked`), so a consumer keyed by `grantId` is order-insensitive.
 */
export const AppGrantChanged = defineEvent(
  'identity.app.grant-changed.v1',
  z.object({ grantId: z.string(), appId: Id, userId: Id, scopes: z.array(z.string()), at: z.string() }),
);
/** The grant ended (user revoked, app revoked it, code replay, refresh reuse, app deleted). */
export const AppGrantRevoked = defineEvent(
  'identity.app.grant-revoked.v1',
  z.object({ grantId: z.string(), appId: Id, userId: Id, reason: z.string(), at: z.string() }),
);
