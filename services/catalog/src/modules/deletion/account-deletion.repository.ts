import { PlaylistDeleted, TrackDeleted, writeOutbox } from '@msp/events';
import { removeInBatches, type Logger } from '@msp/runtime';
import { raw, sql, type Sql } from '@msp/db';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { TRENDING_DAYS, TRENDING_WEIGHTS } from '../discovery/trending-rules.js';

/** Rows one statement deletes or rewrites at most: each batch commits on its own, a few ms long. */
export const ROW_BATCH = 300;
/** Outbox rows one statement looks at (by `seq`, in order), whether or not they name the user. */
export const OUTBOX_SCAN = 2000;

const WINDOW_START = sql`((now() AT TIME ZONE 'utc')::date - ${TRENDING_DAYS - 1}::int)`;

/** A track of the deleted user, with the object keys its row names. */
export interface DoomedTrack {
  id: number;
  keys: string[];
}

/**
 * The SQL of account deletion in catalog (docs/account-control.md). Every statement touches at
 * most ROW_BATCH rows and commits by itself (or with its outbox events), so another user's write
 * never waits behind a deleted user's thousands of rows; each is idempotent (it deletes what is
 * still there), so a restart repeats the work left and nothing else.
 */
export class AccountDeletionRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly logger?: Pick<Logger, 'debug' | 'warn'>,
  ) {}

  /**
   * Runs `statement` (which must touch at most ROW_BATCH rows and answer `n`) until it touches none,
   * each run committed on its own (`removeInBatches`).
   */
  private async drain(statement: Sql): Promise<number> {
    const summary = await removeInBatches(
      async () => {
        const rows = await this.prisma.$queryRaw<Array<{ n: number }>>(statement);
        return Number(rows[0]?.n ?? 0);
      },
      { name: 'catalog.account-deletion', logger: this.logger },
    );
    return summary.removed;
  }

  /** Deletes the rows of `table` (a name from this file) matching `where`, ROW_BATCH at a time. */
  private deleteWhere(table: string, where: Sql): Promise<number> {
    const t = raw(table);
    return this.drain(
      sql`WITH d AS (DELETE FROM ${t} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${t} WHERE ${where} LIMIT ${ROW_BATCH})) RETURNING 1)
       SELECT count(*)::int AS n FROM d`,
    );
  }

  private async tableExists(table: string): Promise<boolean> {
    const rows = await this.prisma.$queryRaw<Array<{ ok: boolean }>>(sql`SELECT to_regclass(${table}) IS NOT NULL AS ok`);
    return rows[0]?.ok ?? false;
  }

  /**
   * Whether catalog's user projection has taken the deletion (`is_deleted`, or no row at all): it
   * reads identity's events in order, so every earlier profile event of the user is applied too
   * and none can re-create the row after this removal.
   */
  async projectionHasDeletion(userId: number): Promise<boolean> {
    const rows = await this.prisma.$queryRaw<Array<{ ok: boolean }>>(
      sql`SELECT NOT EXISTS (SELECT 1 FROM user_summaries WHERE user_id = ${userId} AND NOT is_deleted) AS ok`,
    );
    return rows[0]?.ok ?? false;
  }

  /** The words the user's name put in the search vocabulary (before the summary row goes). */
  async nameWords(userId: number): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<Array<{ word: string }>>(
      sql`SELECT DISTINCT unnest(tsvector_to_array(search_doc)) AS word FROM user_summaries WHERE user_id = ${userId}`,
    );
    return rows.map((r) => r.word);
  }

  /** The plays of the user's tracks (and their progress rows): the artist's side of the play log. */
  deletePlaysOfArtist(userId: number): Promise<number> {
    return this.drain(
      sql`WITH d AS (
         DELETE FROM play_events WHERE (played_at, id) IN (SELECT played_at, id FROM play_events WHERE artist_id = ${userId} LIMIT ${ROW_BATCH})
         RETURNING id),
       p AS (DELETE FROM play_progress WHERE play_id IN (SELECT id FROM d))
       SELECT count(*)::int AS n FROM d`,
    );
  }

  /**
   * The user's plays of others' tracks stay in the log, counted as they were (the plays happened),
   * without the listener: `listener_id` becomes NULL, as an anonymous play has it.
   */
  anonymiseListenerPlays(userId: number): Promise<number> {
    return this.drain(
      sql`WITH u AS (
         UPDATE play_events SET listener_id = NULL
          WHERE (played_at, id) IN (SELECT played_at, id FROM play_events WHERE listener_id = ${userId} LIMIT ${ROW_BATCH})
         RETURNING 1)
       SELECT count(*)::int AS n FROM u`,
    );
  }

  /** Rollups and copies keyed by the user: their artist days, their place in others' top listeners, follows, blocks, bans, voids, downloads. */
  async deleteUserKeyedRows(userId: number): Promise<void> {
    await this.deleteWhere('artist_play_days', sql`artist_id = ${userId}`);
    await this.deleteWhere('artist_listener_days', sql`artist_id = ${userId}`);
    await this.deleteWhere('artist_listener_days', sql`listener_id = ${userId}`);
    // INS-2's all-time top listeners (a later migration; skipped where the table does not exist).
    if (await this.tableExists('artist_listener_totals')) {
      await this.deleteWhere('artist_listener_totals', sql`artist_id = ${userId}`);
      await this.deleteWhere('artist_listener_totals', sql`listener_id = ${userId}`);
    }
    await this.deleteWhere('follow_days', sql`user_id = ${userId}`);
    await this.deleteWhere('listening_history', sql`user_id = ${userId}`);
    await this.deleteWhere('user_follows', sql`follower_id = ${userId}`);
    await this.deleteWhere('user_follows', sql`followee_id = ${userId}`);
    // Their likes and reposts of playlists (catalog's copy; the counts follow social's recount).
    await this.deleteWhere('playlist_engagements', sql`kind IN ('L', 'R') AND user_id = ${userId}`);
    await this.deleteWhere('user_blocks', sql`blocker_id = ${userId}`);
    await this.deleteWhere('user_blocks', sql`blocked_id = ${userId}`);
    await this.deleteWhere('user_ban_states', sql`user_id = ${userId}`);
    // Admin voids that named the listener stay (what was voided, by whom, why) without the listener.
    await this.drain(
      sql`WITH u AS (UPDATE play_voids SET listener_id = NULL WHERE id IN (SELECT id FROM play_voids WHERE listener_id = ${userId} LIMIT ${ROW_BATCH}) RETURNING 1)
       SELECT count(*)::int AS n FROM u`,
    );
    // Their downloads of others' tracks stay counted for those artists, anonymised.
    await this.drain(
      sql`WITH u AS (UPDATE track_downloads SET user_id = NULL WHERE ctid = ANY(ARRAY(SELECT ctid FROM track_downloads WHERE user_id = ${userId} LIMIT ${ROW_BATCH})) RETURNING 1)
       SELECT count(*)::int AS n FROM u`,
    );
  }

  /**
   * The user's likes and reposts of tracks (catalog's copy of social's): removed as an unlike or
   * unrepost would remove them, taking each out of its day's trending counter and, inside the
   * window, out of the track's trending score (DSC-2). The shown counts follow social's recount.
   */
  deleteEngagementsOf(userId: number): Promise<number> {
    return this.drain(
      sql`WITH d AS (
         DELETE FROM track_engagements WHERE (kind, user_id, track_id) IN (
           SELECT kind, user_id, track_id FROM track_engagements WHERE kind IN ('L', 'R') AND user_id = ${userId} LIMIT ${ROW_BATCH})
         RETURNING kind, track_id, (created_at AT TIME ZONE 'UTC')::date AS day),
       agg AS (
         SELECT track_id, day, count(*) FILTER (WHERE kind = 'L')::int AS l, count(*) FILTER (WHERE kind = 'R')::int AS r FROM d GROUP BY 1, 2),
       s AS (
         UPDATE track_daily_stats t SET likes = GREATEST(t.likes - agg.l, 0), reposts = GREATEST(t.reposts - agg.r, 0)
           FROM agg WHERE t.track_id = agg.track_id AND t.day = agg.day),
       w AS (
         UPDATE tracks t SET trending_score = GREATEST(t.trending_score - x.w, 0)
           FROM (SELECT track_id, sum(l * ${TRENDING_WEIGHTS.likes}::int + r * ${TRENDING_WEIGHTS.reposts}::int)::int AS w
                   FROM agg WHERE day >= ${WINDOW_START} GROUP BY 1) x
          WHERE t.id = x.track_id)
       SELECT count(*)::int AS n FROM d`,
    );
  }

  /** The next tracks of the user (deleted or not), with every object key their rows name. */
  async nextTracks(userId: number, limit: number): Promise<DoomedTrack[]> {
    const rows = await this.prisma.track.findMany({
      where: { artistId: userId },
      orderBy: { id: 'asc' },
      take: limit,
      select: {
        id: true,
        originalKey: true,
        coverUploadKey: true,
        coverKey: true,
        progressiveKey: true,
        hlsPlaylistKey: true,
        previewKey: true,
        waveformKey: true,
        waveformJsonKey: true,
      },
    });
    return rows.map(({ id, ...keys }) => ({ id, keys: Object.values(keys).filter((k): k is string => !!k) }));
  }

  /** Every row that names one of `trackIds` (others' playlists, history, likes, comments, rollups), batch by batch. */
  async deleteTrackDependents(trackIds: number[]): Promise<void> {
    for (const table of [
      'playlist_tracks',
      'listening_history',
      'track_engagements',
      'track_comments',
      'track_daily_stats',
      'track_play_days',
      'track_play_months',
      'track_play_hours',
      'track_retention',
      'track_downloads',
      'track_sound_reports',
    ]) {
      await this.deleteWhere(table, sql`track_id = ANY(${trackIds}::int[])`);
    }
  }

  /** The track rows themselves, with a `catalog.track.deleted.v1` each, in one transaction. */
  async deleteTracks(userId: number, trackIds: number[]): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const gone = await tx.$queryRaw<Array<{ id: number }>>(sql`DELETE FROM tracks WHERE artist_id = ${userId} AND id = ANY(${trackIds}::int[]) RETURNING id`);
      for (const { id } of gone) await writeOutbox(tx, TrackDeleted, { trackId: id, artistId: userId, byAdmin: false });
    });
  }

  /** The next playlists of the user, with their cover keys. */
  async nextPlaylists(userId: number, limit: number): Promise<Array<{ id: number; coverKey: string | null }>> {
    return this.prisma.playlist.findMany({ where: { ownerId: userId }, orderBy: { id: 'asc' }, take: limit, select: { id: true, coverKey: true } });
  }

  /** Playlists (their entries first, ROW_BATCH at a time), then the rows with a `catalog.playlist.deleted.v1` each. */
  async deletePlaylists(userId: number, playlistIds: number[]): Promise<void> {
    await this.deleteWhere('playlist_tracks', sql`playlist_id = ANY(${playlistIds}::int[])`);
    await this.deleteWhere('playlist_engagements', sql`playlist_id = ANY(${playlistIds}::int[])`);
    await this.prisma.$transaction(async (tx) => {
      const gone = await tx.$queryRaw<Array<{ id: number }>>(
        sql`DELETE FROM playlists WHERE owner_id = ${userId} AND id = ANY(${playlistIds}::int[]) RETURNING id`,
      );
      for (const { id } of gone) await writeOutbox(tx, PlaylistDeleted, { playlistId: id, ownerId: userId });
    });
  }

  /**
   * Published outbox events about the user (kept a few days for the relay): the upload status
   * events carry the uploader's Track record, with the username. One pass over the outbox in
   * commit order, OUTBOX_SCAN rows a statement (a keyset on `seq`), not a scan of the whole table
   * per batch. Unpublished ones are left to the relay.
   */
  async deletePublishedEventsOf(userId: number): Promise<number> {
    const summary = await removeInBatches<bigint>(
      async (afterSeq) => {
        const [row] = await this.prisma.$queryRaw<Array<{ scanned: number; last: bigint | null; removed: number }>>(
          sql`WITH s AS (SELECT seq, published_at, payload FROM outbox_event WHERE seq > ${afterSeq ?? 0n} ORDER BY seq LIMIT ${OUTBOX_SCAN}),
                d AS (DELETE FROM outbox_event o USING s
                       WHERE o.seq = s.seq AND s.published_at IS NOT NULL
                         AND ${String(userId)} IN (s.payload->'data'->>'artistId', s.payload->'data'->>'ownerId', s.payload->'data'->>'userId')
                      RETURNING 1)
           SELECT (SELECT count(*)::int FROM s) AS scanned, (SELECT max(seq) FROM s) AS last, (SELECT count(*)::int FROM d) AS removed`,
        );
        return { removed: row?.removed ?? 0, next: row && row.scanned === OUTBOX_SCAN ? row.last : null };
      },
      { name: 'catalog.outbox_event', logger: this.logger, context: { userId } },
    );
    return summary.removed;
  }

  /**
   * The user's summary row, last (until then the rest stays hidden: `is_deleted`), and in the same
   * transaction the vocabulary words (DSC-3 corrections) of `words` that no remaining user,
   * playlist or listed track has: the deleted user's name does not stay in `search_words`. A word
   * only an unlisted track holds goes too (search never shows such a track; typo correction of it
   * resumes with the next edit of its title or tags).
   */
  async deleteSummary(userId: number, words: string[]): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw(sql`DELETE FROM user_summaries WHERE user_id = ${userId}`);
      if (words.length === 0) return;
      await tx.$executeRaw(
        sql`WITH unused AS (
           SELECT w FROM unnest(${words}::text[]) AS w
            WHERE NOT EXISTS (SELECT 1 FROM user_summaries WHERE search_doc @@ to_tsquery('simple', quote_literal(w)))
              AND NOT EXISTS (SELECT 1 FROM playlists WHERE NOT is_private AND search_doc @@ to_tsquery('simple', quote_literal(w)))
              AND NOT EXISTS (SELECT 1 FROM tracks WHERE deleted_at IS NULL AND NOT is_private AND state = 'FINISHED'
                                                     AND search_doc @@ to_tsquery('simple', quote_literal(w)))),
         v AS (DELETE FROM search_word_variants WHERE (variant, word) IN (SELECT d, w FROM unused, msp_word_deletions(w) AS d))
         DELETE FROM search_words WHERE word IN (SELECT w FROM unused)`,
      );
    });
  }
}
