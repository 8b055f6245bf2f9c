import { z } from 'zod';
import { TrackStateSchema } from '../../enums.js';
import type { Operations } from '../../operation-schema.js';
import { DeviceInfoSchema } from '../../records/auth.js';
import { MessageResponseSchema } from '../../records/common.js';
import { pageSchema } from '../../records/page.js';
import { IdParamSchema, PageQuerySchema } from '../../records/request.js';
import {
  EmbedCodeSchema,
  PublishResultSchema,
  ResolveResultSchema,
  SecretTokenSchema,
  TrackSchema,
  UploadAcceptedSchema,
  UploadStatusMessageSchema,
  WaveformUrlSchema,
} from '../../records/tracks.js';

/** Where a play started (TRK-17/18 `source`); absent when the client did not say. */
export const TRACK_PLAY_SOURCES = ['app', 'embed', 'playlist', 'station', 'search', 'feed', 'profile'] as const;
export type TrackPlaySource = (typeof TRACK_PLAY_SOURCES)[number];

const params = IdParamSchema('trackId');

/** TRK-17/18 body; every field optional, unknown ones ignored; `source` is where the play started (docs/insights.md). */
const playBody = z
  .object({
    trackId: z.number().int().positive().optional(),
    deviceInfo: DeviceInfoSchema.optional(),
    secretToken: z.string().max(200).optional(),
    source: z.enum(TRACK_PLAY_SOURCES).optional(),
  })
  .nullish();

const OwnTracksQuerySchema = PageQuerySchema.extend({ state: TrackStateSchema.optional() });
const UserParams = IdParamSchema('userId');
/** R1: `/users/{userId}/…` also accepts a username (never all digits). */
const UserRefParams = z.object({ userId: z.string().min(1).max(100) });
const UsernameParams = z.object({ username: z.string().min(1).max(100) });
const trackPage = { 200: pageSchema(TrackSchema) };
const track = { 200: TrackSchema };
const message = { 200: MessageResponseSchema };
const secretToken = { 200: SecretTokenSchema };

/** The operations of catalog's tracks module (services/catalog/src/modules/tracks): contract row, input and output. */
export const CATALOG_TRACKS = {
  /** TRK-1/TRK-2 bodies are multipart, read part by part by the upload service (R11 text parts and the audio file). */
  'TRK-1': {
    method: 'POST',
    path: '/tracks/upload',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'upload',
    summary: 'Upload a new track',
    errors: [
      'VALIDATION_FAILED',
      'MALFORMED_REQUEST',
      'UNSUPPORTED_AUDIO_FORMAT',
      'UNSUPPORTED_IMAGE_FORMAT',
      'UNAUTHORIZED',
      'UPLOAD_QUOTA_EXCEEDED',
      'UPLOAD_ID_CONFLICT',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
      'TRACK_PROCESSING_FAILED',
    ],
    scope: 'write',

    consumes: ['multipart/form-data'],
    response: { 201: TrackSchema, 202: TrackSchema },
  },
  'TRK-2': {
    method: 'POST',
    path: '/tracks/upload/v2',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'upload',
    summary: 'Upload a new track V2',
    errors: [
      'VALIDATION_FAILED',
      'MALFORMED_REQUEST',
      'UNSUPPORTED_AUDIO_FORMAT',
      'UNSUPPORTED_IMAGE_FORMAT',
      'UNAUTHORIZED',
      'UPLOAD_QUOTA_EXCEEDED',
      'UPLOAD_ID_CONFLICT',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
    ],
    scope: 'write',

    consumes: ['multipart/form-data'],
    response: { 201: UploadAcceptedSchema },
  },
  'TRK-3': {
    method: 'GET',
    path: '/tracks/{trackId}/status',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Track status',
    errors: ['UNAUTHORIZED', 'TRACK_NOT_FOUND'],
    scope: 'read',

    params,
    response: { 200: UploadStatusMessageSchema },
  },
  'TRK-4': {
    method: 'POST',
    path: '/tracks/{trackId}/retry-processing',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Retry processing',
    errors: ['UNAUTHORIZED', 'TRACK_NOT_FOUND', 'INVALID_TRACK_STATE'],
    scope: 'write',

    params,
    response: { 202: UploadStatusMessageSchema },
  },
  'TRK-5': {
    method: 'POST',
    path: '/tracks/{trackId}/publish',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Publish track',
    errors: ['UNAUTHORIZED', 'TRACK_NOT_FOUND', 'INVALID_TRACK_STATE', 'ALREADY_PUBLISHED'],
    scope: 'write',

    params,
    response: { 200: PublishResultSchema },
  },
  'TRK-6': {
    method: 'GET',
    path: '/tracks/{trackId}',
    auth: 'optional',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Track metadata',
    errors: ['TRACK_NOT_FOUND'],
    scope: 'read',

    params,
    response: track,
  },
  'TRK-7': {
    method: 'GET',
    path: '/users/me/tracks/{trackId}',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Track metadata (user)',
    errors: ['UNAUTHORIZED', 'TRACK_NOT_FOUND'],
    scope: 'read',

    params,
    response: track,
  },
  /** JSON, or multipart text parts plus an optional cover; the service reads and checks the body itself. */
  'TRK-8': {
    method: 'PATCH',
    path: '/tracks/{trackId}',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'image',
    summary: 'Update track metadata',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNSUPPORTED_IMAGE_FORMAT', 'UNAUTHORIZED', 'FORBIDDEN', 'TRACK_NOT_FOUND', 'PAYLOAD_TOO_LARGE'],
    scope: 'write',

    consumes: ['application/json', 'multipart/form-data'],
    params,
    response: track,
  },
  'TRK-9': {
    method: 'DELETE',
    path: '/tracks/{trackId}',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Delete a track',
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'TRACK_NOT_FOUND'],
    scope: 'write',

    params,
    response: message,
  },
  'TRK-10': {
    method: 'DELETE',
    path: '/tracks/{trackId}/cover',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Delete track cover',
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'TRACK_NOT_FOUND'],
    scope: 'write',

    params,
    response: { 204: z.null() },
  },
  'TRK-11': {
    method: 'GET',
    path: '/tracks/{trackId}/secret-token',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Get secret token',
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'TRACK_NOT_FOUND'],
    scope: 'read',

    params,
    response: secretToken,
  },
  'TRK-12': {
    method: 'POST',
    path: '/tracks/{trackId}/regenerate-token',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Generate new secret token',
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'TRACK_NOT_FOUND'],
    scope: 'write',

    params,
    response: secretToken,
  },
  'TRK-13': {
    method: 'GET',
    path: '/tracks/token/{token}',
    auth: 'optional',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Track with token',
    errors: ['TRACK_NOT_FOUND'],
    scope: 'read',

    params: z.object({ token: z.string().min(1).max(200) }),
    response: track,
  },
  'TRK-14': {
    method: 'GET',
    path: '/tracks/resolve/{trackSlug}',
    auth: 'optional',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Resolve track slug to id',
    errors: ['TRACK_NOT_FOUND'],
    scope: 'read',

    params: z.object({ trackSlug: z.string().min(1).max(200) }),
    response: { 200: ResolveResultSchema },
  },
  'TRK-15': {
    method: 'GET',
    path: '/tracks/{trackId}/waveform-url',
    auth: 'optional',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Waveform URL',
    errors: ['TRACK_NOT_FOUND'],
    scope: 'read',

    params,
    response: { 200: WaveformUrlSchema },
  },
  'TRK-16': {
    method: 'GET',
    path: '/tracks/{trackId}/embed',
    auth: 'optional',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'HTML iframe embed code',
    errors: ['TRACK_NOT_FOUND'],
    scope: 'read',

    params,
    response: { 200: EmbedCodeSchema },
  },
  'TRK-17': {
    method: 'POST',
    path: '/tracks/{trackId}/play',
    auth: 'optional',
    owner: 'catalog',
    bodyKind: 'json',
    summary: 'Increment play count',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'TRACK_NOT_PLAYABLE', 'TRACK_NOT_FOUND'],

    // A player reporting what it plays.
    scope: 'read',

    params,
    body: playBody,
    response: message,
  },
  'TRK-18': {
    method: 'POST',
    path: '/tracks/{trackId}/complete',
    auth: 'optional',
    owner: 'catalog',
    bodyKind: 'json',
    summary: 'Mark a track as completely listened to',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'TRACK_NOT_PLAYABLE', 'TRACK_NOT_FOUND'],
    scope: 'read',

    params,
    body: playBody,
    response: message,
  },
  'TRK-19': {
    method: 'GET',
    path: '/tracks/{trackId}/download',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Mock offline download for Pro users',
    errors: ['UNAUTHORIZED', 'PRO_REQUIRED', 'TRACK_NOT_PLAYABLE', 'TRACK_NOT_FOUND', 'INVALID_TRACK_STATE', 'RANGE_NOT_SATISFIABLE'],
    scope: 'read',

    params,
  },
  'TRK-21': {
    method: 'GET',
    path: '/users/me/tracks',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Tracks of the current user',
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED'],
    scope: 'read',

    querystring: OwnTracksQuerySchema,
    response: trackPage,
  },
  'TRK-22': {
    method: 'GET',
    path: '/users/username/{username}/tracks',
    auth: 'optional',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Tracks of another user',
    errors: ['VALIDATION_FAILED', 'USER_NOT_FOUND'],
    scope: 'read',

    params: UsernameParams,
    querystring: PageQuerySchema,
    response: trackPage,
  },
  'TRK-23': {
    method: 'GET',
    path: '/tracks/user/{userId}',
    auth: 'optional',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Tracks of another user',
    deprecated: true,
    errors: ['VALIDATION_FAILED', 'USER_NOT_FOUND'],
    scope: 'read',

    params: UserParams,
    querystring: PageQuerySchema,
    response: trackPage,
  },
  'USR-17': {
    method: 'GET',
    path: '/users/me/history',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'User listening history',
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED'],
    scope: 'read',

    querystring: PageQuerySchema,
    response: trackPage,
  },
  'USR-18': {
    method: 'GET',
    path: '/users/{userId}/tracks',
    auth: 'optional',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Tracks uploaded by a user',
    errors: ['VALIDATION_FAILED', 'USER_NOT_FOUND'],
    scope: 'read',

    params: UserRefParams,
    querystring: PageQuerySchema,
    response: trackPage,
  },
  'MOD-11': {
    method: 'DELETE',
    path: '/admin/tracks/{trackId}',
    auth: 'admin',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Admin delete track',
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'TRACK_NOT_FOUND'],

    params,
    querystring: z.object({ reason: z.string().max(1000).optional() }),
    response: message,
  },
} satisfies Operations;
