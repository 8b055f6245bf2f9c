import { z } from 'zod';
import type { Operations } from '../../operation-schema.js';
import { pageSchema } from '../../records/page.js';
import { PlaylistSchema, PlaylistSecretLinkSchema } from '../../records/playlists.js';
import { IdSchema } from '../../records/primitives.js';
import { IdParamSchema, IdTextSchema, PageQuerySchema } from '../../records/request.js';
import { EmbedCodeSchema, ResolveResultSchema, TrackSummarySchema } from '../../records/tracks.js';

const PlaylistParams = IdParamSchema('playlistId');
const PlaylistTrackParams = z.object({ playlistId: IdTextSchema, trackId: IdTextSchema });
/** R1: `/users/{username}/…` also accepts a user id (a username is never all digits). */
const UserParams = z.object({ username: z.string().min(1).max(100) });
const UserPlaylistParams = z.object({ username: z.string().min(1).max(100), playlistId: IdTextSchema });
const TokenParams = z.object({ token: z.string().min(1).max(200) });
const ResolveQuery = z.object({ playlistSlug: z.string().trim().min(1).max(200) });
const AddTrackQuery = z.object({ trackId: IdTextSchema.optional() });
const AddTrackBody = z.object({ trackId: IdSchema.optional() }).nullish();

/**
 * PLS-10 body: `{trackIds}`; a Playlist-shaped body is accepted too (order from
 * `paginatedTrackResponse.content[].id`, else `trackSummaryDto[].id`).
 */
const IdItem = z.object({ id: IdSchema });
const ReorderBody = z
  .object({
    trackIds: z.array(IdSchema).max(1000).optional(),
    paginatedTrackResponse: z.object({ content: z.array(IdItem).max(1000) }).nullish(),
    trackSummaryDto: z.array(IdItem).max(1000).nullish(),
  })
  .transform((b, ctx) => {
    const ids = b.trackIds ?? b.paginatedTrackResponse?.content.map((t) => t.id) ?? b.trackSummaryDto?.map((t) => t.id);
    if (!ids) {
      ctx.addIssue({ code: 'custom', path: ['trackIds'], message: 'Expected trackIds (or a Playlist-shaped body with its tracks)' });
      return z.NEVER;
    }
    return ids;
  });

/** PLS-3/PLS-5 take JSON or a multipart form (fields and cover read by the handler). */
const playlistInput = ['application/json', 'multipart/form-data'];
const playlistPage = { 200: pageSchema(PlaylistSchema) };
const playlist = { 200: PlaylistSchema };
const noContent = { 204: z.null() };
const secretLink = { 200: PlaylistSecretLinkSchema };

/** The operations of catalog's playlists module (services/catalog/src/modules/playlists): contract row, input and output. */
export const CATALOG_PLAYLISTS = {
  'PLS-1': {
    method: 'GET',
    path: '/users/me/playlists',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Get all playlists created by the current user',
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED'],
    scope: 'read',

    querystring: PageQuerySchema,
    response: playlistPage,
  },
  'PLS-2': {
    method: 'GET',
    path: '/users/me/playlists/{playlistId}',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Current user playlist with tracks',
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED', 'PLAYLIST_NOT_FOUND'],
    scope: 'read',

    params: PlaylistParams,
    querystring: PageQuerySchema,
    response: playlist,
  },
  'PLS-3': {
    method: 'POST',
    path: '/playlists',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'image',
    summary: 'Create playlist',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNSUPPORTED_IMAGE_FORMAT', 'UNAUTHORIZED', 'PAYLOAD_TOO_LARGE'],
    scope: 'write',

    consumes: playlistInput,
    response: { 201: PlaylistSchema },
  },
  'PLS-4': {
    method: 'GET',
    path: '/playlists/{playlistId}',
    auth: 'optional',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Playlist with tracks',
    errors: ['VALIDATION_FAILED', 'PLAYLIST_NOT_FOUND'],
    scope: 'read',

    params: PlaylistParams,
    querystring: PageQuerySchema,
    response: playlist,
  },
  'PLS-5': {
    method: 'PATCH',
    path: '/playlists/{playlistId}',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'image',
    summary: 'Update playlist metadata',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNSUPPORTED_IMAGE_FORMAT', 'UNAUTHORIZED', 'FORBIDDEN', 'PLAYLIST_NOT_FOUND', 'PAYLOAD_TOO_LARGE'],
    scope: 'write',

    consumes: playlistInput,
    params: PlaylistParams,
    response: playlist,
  },
  'PLS-6': {
    method: 'DELETE',
    path: '/playlists/{playlistId}',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Delete a playlist',
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'PLAYLIST_NOT_FOUND'],
    scope: 'write',

    params: PlaylistParams,
    response: noContent,
  },
  'PLS-7': {
    method: 'DELETE',
    path: '/playlists/{playlistId}/cover',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Delete playlist cover',
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'PLAYLIST_NOT_FOUND'],
    scope: 'write',

    params: PlaylistParams,
    response: noContent,
  },
  'PLS-8': {
    method: 'POST',
    path: '/playlists/{playlistId}/tracks',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'json',
    summary: 'Add track to playlist',
    errors: [
      'VALIDATION_FAILED',
      'MALFORMED_REQUEST',
      'UNAUTHORIZED',
      'FORBIDDEN',
      'PLAYLIST_NOT_FOUND',
      'TRACK_NOT_FOUND',
      'TRACK_ALREADY_IN_PLAYLIST',
      'PLAYLIST_FULL',
    ],
    scope: 'write',

    params: PlaylistParams,
    querystring: AddTrackQuery,
    body: AddTrackBody,
    response: playlist,
  },
  'PLS-9': {
    method: 'DELETE',
    path: '/playlists/{playlistId}/tracks/{trackId}',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Remove track from playlist',
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'PLAYLIST_NOT_FOUND', 'TRACK_NOT_IN_PLAYLIST'],
    scope: 'write',

    params: PlaylistTrackParams,
    response: noContent,
  },
  'PLS-10': {
    method: 'PATCH',
    path: '/playlists/{playlistId}/tracks/reorder',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'json',
    summary: 'Reorder tracks inside a playlist',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'INVALID_PLAYLIST_ORDER', 'UNAUTHORIZED', 'FORBIDDEN', 'PLAYLIST_NOT_FOUND'],
    scope: 'write',

    params: PlaylistParams,
    body: ReorderBody,
    response: playlist,
  },
  'PLS-11': {
    method: 'GET',
    path: '/playlists/{playlistId}/tracks',
    auth: 'optional',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Playlist tracks (additional)',
    errors: ['VALIDATION_FAILED', 'PLAYLIST_NOT_FOUND'],
    scope: 'read',

    params: PlaylistParams,
    querystring: PageQuerySchema,
    response: { 200: pageSchema(TrackSummarySchema) },
  },
  'PLS-12': {
    method: 'GET',
    path: '/playlists/{playlistId}/secret-link',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Get playlist secret link',
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'PLAYLIST_NOT_FOUND'],
    scope: 'read',

    params: PlaylistParams,
    response: secretLink,
  },
  'PLS-13': {
    method: 'POST',
    path: '/playlists/{playlistId}/secret-link/regenerate',
    auth: 'bearer',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Regenerate secret link',
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'PLAYLIST_NOT_FOUND'],
    scope: 'write',

    params: PlaylistParams,
    response: secretLink,
  },
  'PLS-14': {
    method: 'GET',
    path: '/playlists/token/{token}',
    auth: 'optional',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Playlist with token',
    errors: ['VALIDATION_FAILED', 'PLAYLIST_NOT_FOUND'],
    scope: 'read',

    params: TokenParams,
    querystring: PageQuerySchema,
    response: playlist,
  },
  'PLS-15': {
    method: 'GET',
    path: '/playlists/{playlistId}/embed',
    auth: 'optional',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'HTML iframe embed code for a playlist',
    errors: ['PLAYLIST_NOT_FOUND'],
    scope: 'read',

    params: PlaylistParams,
    response: { 200: EmbedCodeSchema },
  },
  'PLS-16': {
    method: 'GET',
    path: '/playlists/resolve',
    auth: 'optional',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Resolve playlist slug to id',
    errors: ['VALIDATION_FAILED', 'PLAYLIST_NOT_FOUND'],
    scope: 'read',

    querystring: ResolveQuery,
    response: { 200: ResolveResultSchema },
  },
  'PLS-17': {
    method: 'GET',
    path: '/users/{username}/playlists/{playlistId}',
    auth: 'optional',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Playlists of a specific user with tracks',
    errors: ['VALIDATION_FAILED', 'USER_NOT_FOUND', 'PLAYLIST_NOT_FOUND'],
    scope: 'read',

    params: UserPlaylistParams,
    querystring: PageQuerySchema,
    response: playlist,
  },
  'USR-19': {
    method: 'GET',
    path: '/users/{username}/playlists',
    auth: 'optional',
    owner: 'catalog',
    bodyKind: 'none',
    summary: 'Public playlists created by a user',
    errors: ['VALIDATION_FAILED', 'USER_NOT_FOUND'],
    scope: 'read',

    params: UserParams,
    querystring: PageQuerySchema,
    response: playlistPage,
  },
} satisfies Operations;
