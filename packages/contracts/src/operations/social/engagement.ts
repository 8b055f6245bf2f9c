import { z } from 'zod';
import type { Operations } from '../../operation-schema.js';
import { pageSchema } from '../../records/page.js';
import { PlaylistSchema } from '../../records/playlists.js';
import { IdParamSchema, PageQuerySchema, UserRefSchema } from '../../records/request.js';
import { LikeResponseSchema, RepostHistoryEntrySchema, RepostResponseSchema } from '../../records/social.js';
import { TrackSchema } from '../../records/tracks.js';
import { UserSummarySchema } from '../../records/users.js';

// engagement.routes.ts: likes and reposts of tracks and playlists, and who made them.
const trackParams = IdParamSchema('trackId');
const playlistParams = IdParamSchema('playlistId');
const like = { 200: LikeResponseSchema };
const repost = { 200: RepostResponseSchema };
const users = { 200: pageSchema(UserSummarySchema) };

// activity.routes.ts: what a user liked and reposted.
const byUser = z.object({ username: UserRefSchema });
const tracks = { 200: pageSchema(TrackSchema) };

/** The operations of social's engagement module (services/social/src/modules/engagement): contract row, input and output. */
export const SOCIAL_ENGAGEMENT = {
  'ENG-1': {
    method: 'POST',
    path: '/tracks/{trackId}/like',
    auth: 'bearer',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Like a track',
    errors: ['UNAUTHORIZED', 'TRACK_NOT_FOUND'],
    scope: 'engage',

    params: trackParams,
    response: like,
  },
  'ENG-2': {
    method: 'DELETE',
    path: '/tracks/{trackId}/like',
    auth: 'bearer',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Unlike a track',
    errors: ['UNAUTHORIZED', 'TRACK_NOT_FOUND'],
    scope: 'engage',

    params: trackParams,
    response: like,
  },
  'ENG-3': {
    method: 'GET',
    path: '/users/tracks/{trackId}/like',
    auth: 'optional',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Track likers',
    errors: ['VALIDATION_FAILED', 'TRACK_NOT_FOUND'],
    scope: 'read',

    params: trackParams,
    querystring: PageQuerySchema,
    response: users,
  },
  'ENG-4': {
    method: 'POST',
    path: '/tracks/{trackId}/repost',
    auth: 'bearer',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Repost a track',
    errors: ['SELF_ACTION_NOT_ALLOWED', 'UNAUTHORIZED', 'TRACK_NOT_FOUND'],
    scope: 'engage',

    params: trackParams,
    response: repost,
  },
  'ENG-5': {
    method: 'DELETE',
    path: '/tracks/{trackId}/repost',
    auth: 'bearer',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Remove track repost',
    errors: ['UNAUTHORIZED', 'TRACK_NOT_FOUND'],
    scope: 'engage',

    params: trackParams,
    response: repost,
  },
  'ENG-6': {
    method: 'GET',
    path: '/users/tracks/{trackId}/reposters',
    auth: 'optional',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Track reposters',
    errors: ['VALIDATION_FAILED', 'TRACK_NOT_FOUND'],
    scope: 'read',

    params: trackParams,
    querystring: PageQuerySchema,
    response: users,
  },
  'ENG-7': {
    method: 'POST',
    path: '/playlists/{playlistId}/like',
    auth: 'bearer',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Like a playlist',
    errors: ['UNAUTHORIZED', 'PLAYLIST_NOT_FOUND'],
    scope: 'engage',

    params: playlistParams,
    response: like,
  },
  'ENG-8': {
    method: 'DELETE',
    path: '/playlists/{playlistId}/like',
    auth: 'bearer',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Unlike a playlist',
    errors: ['UNAUTHORIZED', 'PLAYLIST_NOT_FOUND'],
    scope: 'engage',

    params: playlistParams,
    response: like,
  },
  'ENG-9': {
    method: 'GET',
    path: '/users/playlists/{playlistId}/like',
    auth: 'optional',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Playlist likers',
    errors: ['VALIDATION_FAILED', 'PLAYLIST_NOT_FOUND'],
    scope: 'read',

    params: playlistParams,
    querystring: PageQuerySchema,
    response: users,
  },
  'ENG-10': {
    method: 'POST',
    path: '/playlists/{playlistId}/repost',
    auth: 'bearer',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Repost a playlist',
    errors: ['SELF_ACTION_NOT_ALLOWED', 'UNAUTHORIZED', 'PLAYLIST_NOT_FOUND'],
    scope: 'engage',

    params: playlistParams,
    response: repost,
  },
  'ENG-11': {
    method: 'DELETE',
    path: '/playlists/{playlistId}/repost',
    auth: 'bearer',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Remove playlist repost',
    errors: ['UNAUTHORIZED', 'PLAYLIST_NOT_FOUND'],
    scope: 'engage',

    params: playlistParams,
    response: repost,
  },
  'ENG-12': {
    method: 'GET',
    path: '/users/playlists/{playlistId}/reposters',
    auth: 'optional',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Playlist reposters',
    errors: ['VALIDATION_FAILED', 'PLAYLIST_NOT_FOUND'],
    scope: 'read',

    params: playlistParams,
    querystring: PageQuerySchema,
    response: users,
  },
  'USR-20': {
    method: 'GET',
    path: '/users/me/liked-tracks',
    auth: 'bearer',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Tracks liked by the current user',
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED'],
    scope: 'read',

    querystring: PageQuerySchema,
    response: tracks,
  },
  'USR-21': {
    method: 'GET',
    path: '/users/{username}/liked-playlists',
    auth: 'optional',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Playlists liked by a user',
    errors: ['VALIDATION_FAILED', 'PROFILE_PRIVATE', 'USER_NOT_FOUND'],
    scope: 'read',

    params: byUser,
    querystring: PageQuerySchema,
    response: { 200: pageSchema(PlaylistSchema) },
  },
  'USR-22': {
    method: 'GET',
    path: '/users/{username}/reposted-tracks',
    auth: 'optional',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Tracks reposted by a user',
    errors: ['VALIDATION_FAILED', 'PROFILE_PRIVATE', 'USER_NOT_FOUND'],
    scope: 'read',

    params: byUser,
    querystring: PageQuerySchema,
    response: tracks,
  },
  'ENG-18': {
    method: 'GET',
    path: '/users/me/repost',
    auth: 'bearer',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Tracks reposted by a user',
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED'],
    scope: 'read',

    querystring: PageQuerySchema,
    response: tracks,
  },
  'ENG-19': {
    method: 'GET',
    path: '/users/repost/{username}',
    auth: 'optional',
    owner: 'social',
    bodyKind: 'none',
    summary: 'User repost history',
    errors: ['VALIDATION_FAILED', 'PROFILE_PRIVATE', 'USER_NOT_FOUND'],
    scope: 'read',

    params: byUser,
    querystring: PageQuerySchema,
    response: { 200: pageSchema(RepostHistoryEntrySchema) },
  },
  'ENG-20': {
    method: 'GET',
    path: '/users/{username}/liked-tracks',
    auth: 'optional',
    owner: 'social',
    bodyKind: 'none',
    summary: 'Tracks liked by a user',
    errors: ['VALIDATION_FAILED', 'PROFILE_PRIVATE', 'USER_NOT_FOUND'],
    scope: 'read',

    params: byUser,
    querystring: PageQuerySchema,
    response: tracks,
  },
} satisfies Operations;
