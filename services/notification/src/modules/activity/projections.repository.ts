import { blocksCopyTable, followsCopyTable } from '@msp/runtime';
import type { PlaylistSnapshot, TrackSnapshot } from '@msp/events';
import type { Prisma } from '../../generated/prisma/client.js';

type Tx = Prisma.TransactionClient;

/**
 * Notification's copies of other services' data, written by the activity consumers inside the
 * transaction that records the event as processed: follows and blocks (social, R7), bans
 * (identity, R14), titles and slugs of tracks and playlists (catalog).
 */
export const projectionsRepository = {
  ...followsCopyTable('follows'),
  ...blocksCopyTable('blocks'),

  async upsertTrack(tx: Tx, s: TrackSnapshot): Promise<void> {
    await tx.$executeRaw`
      INSERT INTO track_refs (track_id, artist_id, title, track_slug) VALUES (${s.trackId}, ${s.artistId}, ${s.title}, ${s.trackSlug})
      ON CONFLICT (track_id) DO UPDATE SET artist_id = EXCLUDED.artist_id, title = EXCLUDED.title, track_slug = EXCLUDED.track_slug`;
  },

  async deleteTrack(tx: Tx, trackId: number): Promise<void> {
    await tx.$executeRaw`UPDATE track_refs SET is_deleted = true WHERE track_id = ${trackId}`;
  },

  async upsertPlaylist(tx: Tx, s: PlaylistSnapshot): Promise<void> {
    await tx.$executeRaw`
      INSERT INTO playlist_refs (playlist_id, owner_id, title, playlist_slug) VALUES (${s.playlistId}, ${s.ownerId}, ${s.title}, ${s.playlistSlug})
      ON CONFLICT (playlist_id) DO UPDATE SET owner_id = EXCLUDED.owner_id, title = EXCLUDED.title, playlist_slug = EXCLUDED.playlist_slug`;
  },

  async deletePlaylist(tx: Tx, playlistId: number): Promise<void> {
    await tx.$executeRaw`UPDATE playlist_refs SET is_deleted = true WHERE playlist_id = ${playlistId}`;
  },

  async ban(tx: Tx, { userId, bannedAt }: { userId: number; bannedAt: string }): Promise<void> {
    await tx.$executeRaw`INSERT INTO banned_users (user_id, banned_at) VALUES (${userId}, ${new Date(bannedAt)})
      ON CONFLICT (user_id) DO UPDATE SET banned_at = EXCLUDED.banned_at`;
  },

  async unban(tx: Tx, { userId }: { userId: number }): Promise<void> {
    await tx.$executeRaw`DELETE FROM banned_users WHERE user_id = ${userId}`;
  },
};
