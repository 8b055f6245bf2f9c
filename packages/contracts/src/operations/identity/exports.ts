import { z } from 'zod';
import type { Operations } from '../../operation-schema.js';

const EXPORT_STATUSES = ['PENDING', 'RUNNING', 'READY', 'FAILED', 'CANCELLED', 'EXPIRED'] as const;

const AccountExportSchema = z.object({
  id: z.uuid(),
  status: z.enum(EXPORT_STATUSES),
  createdAt: z.string(),
  readyAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
  /** A signed object-storage URL of the ZIP, only while READY (valid until expiresAt). */
  url: z.string().optional(),
});
export type AccountExport = z.infer<typeof AccountExportSchema>;

/** The operations of identity's exports module (services/identity/src/modules/exports): contract row, input and output. */
export const IDENTITY_EXPORTS = {
  'ACC-1': {
    // ACC: account control, export and deletion (docs/account-control.md)
    method: 'POST',
    path: '/users/me/export',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'Request an export of my data',
    // ACC: account export (docs/account-control.md); ACC-1 answers 429 with Retry-After within 24 h of the last export.
    errors: ['UNAUTHORIZED', 'EXPORT_IN_PROGRESS', 'RATE_LIMITED'],

    // ACC: exporting or deleting the account is the user's own business, never an app's.
    scope: 'closed',
    description:
      'Starts building a ZIP of all your data (profile, tracks with their originals, playlists, plays, likes, comments, messages, notifications, billing). One export per 24 h (429 with Retry-After), 409 while one is being built. A mail and a notification tell you when it is ready.',
    response: { 202: z.object({ exportId: z.uuid() }) },
  },
  'ACC-2': {
    method: 'GET',
    path: '/users/me/export/{exportId}',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'State of an export of my data',
    errors: ['UNAUTHORIZED', 'RESOURCE_NOT_FOUND'],
    scope: 'closed',
    description: 'While READY, `url` is a signed download URL of the ZIP, valid until `expiresAt` (24 h after it was ready).',
    params: z.object({ exportId: z.uuid() }),
    response: { 200: AccountExportSchema },
  },
} satisfies Operations;
