import type { Operations } from '../../operation-schema.js';
import { ImageUpdateResultSchema } from '../../records/users.js';

/** The operations of identity's images module (services/identity/src/modules/images): contract row, input and output. */
export const IDENTITY_IMAGES = {
  'USR-9': {
    method: 'PATCH',
    path: '/users/me/images',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'image',
    summary: 'Update profile or cover images',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNSUPPORTED_IMAGE_FORMAT', 'UNAUTHORIZED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
    scope: 'write',

    consumes: ['multipart/form-data'],
    response: { 200: ImageUpdateResultSchema },
  },
  'USR-10': {
    method: 'DELETE',
    path: '/users/me/images/avatar',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'Delete current user avatar',
    errors: ['UNAUTHORIZED'],
    scope: 'write',
  },
  'USR-11': {
    method: 'DELETE',
    path: '/users/me/images/cover',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'Delete current user cover',
    errors: ['UNAUTHORIZED'],
    scope: 'write',
  },
} satisfies Operations;
