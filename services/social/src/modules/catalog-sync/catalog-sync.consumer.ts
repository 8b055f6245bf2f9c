import type { FastifyBaseLogger } from 'fastify';
import {
  ArtistTrackCountChanged,
  DurableConsumer,
  PlaylistChanged,
  PlaylistDeleted,
  TrackChanged,
  TrackDeleted,
  TrackPublished,
  type NatsConnection,
  type SqlExecutor,
  type TransactionalClient,
} from '@msp/events';
import { markPlaylistDeleted, markTrackDeleted, setTrackCount, upsertPlaylist, upsertTrack } from './catalog-refs.repository.js';

/** Social's copies of tracks and playlists (catalog-refs.repository.ts). Starts the durable `social--catalog-sync` consumer of catalog's track and playlist events. */
export async function startCatalogSync<Tx extends SqlExecutor>(options: {
  nc: NatsConnection;
  db: TransactionalClient<Tx>;
  logger: FastifyBaseLogger;
}): Promise<DurableConsumer<Tx>> {
  const consumer = new DurableConsumer<Tx>({ ...options, service: 'social', name: 'catalog-sync', from: 'catalog' })
    .on(TrackChanged, (data, _e, tx) => upsertTrack(tx, data))
    .on(TrackPublished, (data, _e, tx) => upsertTrack(tx, data))
    .on(TrackDeleted, (data, _e, tx) => markTrackDeleted(tx, data.trackId))
    .on(ArtistTrackCountChanged, (data, _e, tx) => setTrackCount(tx, data.userId, data.trackCount))
    .on(PlaylistChanged, (data, _e, tx) => upsertPlaylist(tx, data))
    .on(PlaylistDeleted, (data, _e, tx) => markPlaylistDeleted(tx, data.playlistId));
  await consumer.start();
  return consumer;
}
