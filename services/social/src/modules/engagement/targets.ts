import { playlistVisibleSql, trackVisibleSql } from '../users/user-sql.js';

export type TargetType = 'TRACK' | 'PLAYLIST';
export type Action = 'like' | 'repost';

/** Where each engageable item lives in social's database. Table names are constants, never input. */
export interface TargetTables {
  ref: string;
  id: string;
  owner: string;
  like: string;
  repost: string;
  notFound: 'TRACK_NOT_FOUND' | 'PLAYLIST_NOT_FOUND';
  visible: (alias: string, viewer: string, admin: string, banExempt?: string) => string;
}

export const TARGETS: Record<TargetType, TargetTables> = {
  TRACK: {
    ref: 'track_refs',
    id: 'track_id',
    owner: 'artist_id',
    like: 'track_likes',
    repost: 'track_reposts',
    notFound: 'TRACK_NOT_FOUND',
    visible: trackVisibleSql,
  },
  PLAYLIST: {
    ref: 'playlist_refs',
    id: 'playlist_id',
    owner: 'owner_id',
    like: 'playlist_likes',
    repost: 'playlist_reposts',
    notFound: 'PLAYLIST_NOT_FOUND',
    visible: playlistVisibleSql,
  },
};

export const COUNTER: Record<Action, 'like_count' | 'repost_count'> = { like: 'like_count', repost: 'repost_count' };
