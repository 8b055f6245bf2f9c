/**
 * Discovery data at scale (a benchmark fixture, not a test): fills catalog's and social's databases
 * with a consistent, realistic data set through server-side SQL bulk inserts (generate_series; social
 * copies catalog's rows through dblink, so both services see the same tracks, playlists and likes;
 * catalog then copies social's follows and playlist likes, as its consumers do in a running fleet).
 *
 *   npx tsx bench/seed.ts                      # bench_catalog + bench_social on the local server
 *   BENCH_SCALE=0.1 npx tsx bench/seed.ts      # a tenth of every size
 *   CATALOG_DATABASE_URL=… SOCIAL_DATABASE_URL=… npx tsx bench/seed.ts   # a fleet's own databases
 *
 * bench_* databases are dropped and recreated; databases given by URL are migrated and EMPTIED
 * (an interrupted load there leaves secondary indexes dropped: rerun it).
 * Sizes at scale 1: 100,000 users (20,000 artists), 1,000,000 tracks with titles, tags and genres
 * drawn from word lists with a Zipf-like skew (common words exist), 100,000 playlists, 5,000,000
 * track likes and 500,000 reposts over the last year, plays over the last 30 days as daily counters,
 * 10 follows per user, one user (the last id) following the 1,000 most active artists, and artist 1
 * followed by everybody (100,000 followers). Indexes are dropped during the load and rebuilt after.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { createPgPool, dropDatabase, ensureDatabase, migrate, pgSqlExecutor } from '../packages/db/src/index.ts';
import { recomputeTrending } from '../services/catalog/src/modules/discovery/trending-stats.repository.ts';
import { SYLLABLES } from './vocabulary.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const PG = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432';
const CATALOG_URL = process.env.CATALOG_DATABASE_URL ?? `${PG}/bench_catalog`;
const SOCIAL_URL = process.env.SOCIAL_DATABASE_URL ?? `${PG}/bench_social`;
const SCALE = Number(process.env.BENCH_SCALE ?? 1);

const n = (x: number) => Math.max(10, Math.round(x * SCALE));
export const SIZES = {
  users: n(100_000),
  artists: n(20_000),
  tracks: n(1_000_000),
  playlists: n(100_000),
  likes: n(5_000_000),
  reposts: n(500_000),
  playlistLikes: n(200_000),
  followsPerUser: 10,
  followedByBigFan: Math.min(1000, n(20_000)),
  playDays: 30,
  playedTracksPerDay: n(50_000),
};

const WORDS = `love night heart dream fire light time world life baby girl boy rain summer city blue gold
  midnight dance feel way soul sky star moon sun ocean river road home wild free young forever lost
  alone together tonight party happy sad money power shadow ghost angel devil paradise heaven storm
  thunder lightning winter spring autumn morning evening sunset sunrise highway island desert forest
  mountain valley garden rose flower diamond silver crystal echo memory promise secret whisper
  scream silence rhythm melody harmony groove bass drum guitar piano violin saxophone trumpet synth
  neon electric cosmic galaxy planet rocket satellite orbit gravity velocity horizon mirage illusion
  fantasy mystery desire passion fever poison medicine remedy chemical velvet satin leather cherry
  honey sugar candy vanilla chocolate coffee whiskey champagne tequila midnight-run afterglow
  wonderland underground overdrive heartbeat lullaby serenade anthem ballad requiem symphony
  nocturne rhapsody boulevard avenue station terminal departure arrival runaway breakaway
  comeback hometown downtown uptown skyline waterfall firefly butterfly dragonfly hummingbird
  nightingale raven phoenix tiger lion wolf fox panther jaguar cobra viper falcon eagle hawk
  café señorita niño corazón mañana fiesta adiós amor noche sueño canción música über schön
  cœur rêve été lumière déjà-vu naïve résumé fiancée`
  .split(/\s+/)
  .filter(Boolean);
const TAGS = `chill lofi upbeat dark melodic acoustic instrumental vocal remix live cover summer night
  workout study sleep party roadtrip romantic sad happy energetic ambient deep groovy vintage retro
  experimental underground mainstream indie diy analog vinyl tape 80s 90s y2k`
  .split(/\s+/)
  .filter(Boolean);
const GENRES = [
  'Hip-hop & Rap',
  'Electronic',
  'Pop',
  'House',
  'Rock',
  'Techno',
  'Indie',
  'R&B & Soul',
  'Dance & EDM',
  'Lo-fi',
  'Ambient',
  'Trap',
  'Deep House',
  'Drum & Bass',
  'Dubstep',
  'Jazz',
  'Alternative',
  'Latin',
  'Reggaeton',
  'Metal',
  'Classical',
  'Country',
  'Folk',
  'Piano',
  'Reggae',
  'Soundtrack',
  'Trance',
  'World',
];
const FIRST = `Ana José Zoë Beyoncé Chloé Björn Renée Noémie Luis María Sofía Léa Jürgen Søren Amélie Mateo Lucas Emma
  Olivia Liam Noah Mia Ava Ethan Mason Harper Elijah Aria Kai Nova Leo Luna Milo Iris Theo Ivy Jade Omar Yara
  Sami Nina Marco Paula Diego Elena Hugo Clara Felix Rosa Oscar Alma Max Lina`
  .split(/\s+/)
  .filter(Boolean);
const LAST = `Smith García Müller Dubois Rossi Silva Kowalski Nguyen Kim Haddad Jensen Novak Costa Moreau Ibáñez
  Løvgren Öztürk Papadopoulos Schmidt Fernández López Martin Bernard Rivera Okafor Mensah Tanaka Sato Park
  Walker Young King Wright Scott Green Baker Adams Nelson Hill Campbell Mitchell Roberts Carter`
  .split(/\s+/)
  .filter(Boolean);

const lit = (xs: readonly string[]) => `ARRAY[${xs.map((x) => `'${x.replace(/'/g, "''")}'`).join(',')}]::text[]`;
/** A Zipf-like pick from an array literal: index k with probability about 1/k (common words are common). */
const zipf = (arr: string, len: number) => `(${arr})[LEAST(${len}, floor(power(${len}::float8, random()))::int)]`;
/** A long-tail word (SYLLABLES), uniform over all of them; `p` the chance that there is one ('' otherwise, a leading space if any). */
const tail = (p: number) => {
  const syl = `(${lit(SYLLABLES)})[1 + floor(random() * ${SYLLABLES.length})::int]`;
  return `CASE WHEN random() < ${p} THEN ' ' || initcap(${syl} || ${syl} || CASE WHEN random() < 0.97 THEN ${syl} ELSE '' END) ELSE '' END`;
};

async function timed<T>(label: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const out = await work();
  console.log(`${label.padEnd(48)} ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return out;
}

/** Drops a table's secondary indexes (kept as SQL) so the bulk load does not maintain them row by row. */
async function dropIndexes(db: pg.Pool, tables: string[]): Promise<string[]> {
  const { rows } = await db.query<{ name: string; def: string }>(
    `SELECT i.indexname AS name, i.indexdef AS def FROM pg_indexes i
      WHERE i.schemaname = 'public' AND i.tablename = ANY($1)
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
    [tables],
  );
  for (const r of rows) await db.query(`DROP INDEX IF EXISTS "${r.name}"`);
  return rows.map((r) => r.def);
}

async function seedCatalog(db: pg.Pool) {
  const S = SIZES;
  await db.query(`SET maintenance_work_mem = '512MB'`);
  await db.query(`TRUNCATE user_summaries, tracks, playlists, playlist_tracks, listening_history, track_daily_stats,
                  track_engagements, track_comments, user_blocks, outbox_event, processed_event RESTART IDENTITY`);
  const indexes = await dropIndexes(db, ['user_summaries', 'tracks', 'playlists', 'track_daily_stats', 'track_engagements']);
  // MOD-12's counter triggers would fire once per row of a bulk load (a million updates of the same
  // 16 rows inside one transaction, each walking a longer chain of row versions: hours). They are
  // off during the load and the counters are computed once at the end, as their migration does.
  await db.query('ALTER TABLE tracks DISABLE TRIGGER USER');
  await db.query('ALTER TABLE user_summaries DISABLE TRIGGER USER');
  const words = lit(WORDS);
  const tags = lit(TAGS);
  const genres = lit(GENRES);
  await timed(`catalog users (${S.users})`, () =>
    db.query(
      `INSERT INTO user_summaries (user_id, username, display_name, tier, role, follower_count, track_count, updated_at)
       SELECT g, lower(regexp_replace(unaccent(f.n || '-' || l.n), '[^a-zA-Z0-9]+', '-', 'g')) || '-' || g,
              f.n || ' ' || l.n || CASE WHEN g <= $2 THEN ${tail(0.25)} ELSE '' END,
              CASE WHEN g % 7 = 0 THEN 'PRO' ELSE 'FREE' END, CASE WHEN g <= $2 THEN 'ARTIST' ELSE 'LISTENER' END, 0, 0, now()
         FROM generate_series(1, $1) g,
              LATERAL (SELECT (${lit(FIRST)})[1 + (g::bigint * 7919) % ${FIRST.length}] AS n) f,
              LATERAL (SELECT (${lit(LAST)})[1 + (g::bigint * 104729) % ${LAST.length}] AS n) l`,
      [S.users, S.artists],
    ),
  );
  await timed(`catalog tracks (${S.tracks})`, () =>
    db.query(
      `INSERT INTO tracks (id, artist_id, title, track_slug, genre, genre_key, tags, release_date, state, is_private, access,
                           secret_token, upload_id, duration_seconds, published_at, created_at, updated_at,
                           progressive_key, preview_key, hls_playlist_key, waveform_key, status_step, status_progress)
       SELECT g, artist, title, 't-' || g, genre, lower(genre), tags, created::date, 'FINISHED', g % 50 = 0,
              CASE WHEN g % 40 = 0 THEN 'PREVIEW'::"TrackAccess" ELSE 'PLAYABLE'::"TrackAccess" END,
              md5('s' || g), md5('u' || g)::uuid, 60 + g % 300, CASE WHEN g % 50 = 0 THEN NULL ELSE created END, created, created,
              'tracks/' || g || '/full.m4a', 'tracks/' || g || '/preview.m4a', 'tracks/' || g || '/hls/index.m3u8',
              'public/' || md5('w' || g)::uuid || '/waveform.png', 'Done', 100
         FROM (SELECT g,
                      -- artists 1..1000 are the most active: a third of all tracks
                      CASE WHEN g % 3 = 0 THEN 1 + (g / 3) % LEAST(1000, $2) ELSE 1 + floor(random() * $2)::int END AS artist,
                      initcap(${zipf(words, WORDS.length)} || CASE WHEN random() < 0.7 THEN ' ' || ${zipf(words, WORDS.length)} ELSE '' END
                              || CASE WHEN random() < 0.3 THEN ' ' || ${zipf(words, WORDS.length)} ELSE '' END) || ${tail(0.35)} AS title,
                      ${zipf(genres, GENRES.length)} AS genre,
                      ARRAY(SELECT DISTINCT ${zipf(tags, TAGS.length)} FROM generate_series(1, 1 + (g % 3)) WHERE g > 0) AS tags,
                      now() - random() * interval '365 days' AS created
                 FROM generate_series(1, $1) g) s`,
      [S.tracks, S.artists],
    ),
  );
  await db.query(`SELECT setval(pg_get_serial_sequence('tracks', 'id'), $1)`, [S.tracks]);
  await timed(`catalog playlists (${S.playlists})`, () =>
    db.query(
      `INSERT INTO playlists (id, owner_id, title, playlist_slug, is_private, genre, secret_token, created_at, updated_at)
       SELECT g, 1 + floor(random() * $2)::int,
              initcap(${zipf(words, WORDS.length)} || ' ' || ${zipf(words, WORDS.length)} || CASE WHEN random() < 0.5 THEN ' Mix' ELSE '' END) || ${tail(0.3)},
              'p-' || g, g % 10 = 0, ${zipf(genres, GENRES.length)}, md5('p' || g), now() - random() * interval '365 days', now()
         FROM generate_series(1, $1) g`,
      [S.playlists, S.users],
    ),
  );
  await db.query(`SELECT setval(pg_get_serial_sequence('playlists', 'id'), $1)`, [S.playlists]);
  // Likes: half uniform, half skewed towards a few hit tracks; (user, track) unique.
  await timed(`catalog track likes (${S.likes})`, () =>
    db.query(
      `INSERT INTO track_engagements (kind, user_id, track_id, created_at)
       SELECT 'L', 1 + floor(random() * $2)::int,
              CASE WHEN g % 2 = 0 THEN 1 + floor(random() * $3)::int ELSE LEAST($3, floor(power(($3::int)::float8, random()))::int) END,
              now() - random() * interval '365 days'
         FROM generate_series(1, $1) g ON CONFLICT DO NOTHING`,
      [S.likes, S.users, S.tracks],
    ),
  );
  await timed(`catalog track reposts (${S.reposts})`, () =>
    db.query(
      `INSERT INTO track_engagements (kind, user_id, track_id, created_at)
       SELECT 'R', 1 + floor(random() * $2)::int, 1 + floor(random() * $3)::int, now() - random() * interval '365 days'
         FROM generate_series(1, $1) g ON CONFLICT DO NOTHING`,
      [S.reposts, S.users, S.tracks],
    ),
  );
  await timed(`catalog daily plays (${S.playDays} days × ${S.playedTracksPerDay})`, () =>
    db.query(
      `INSERT INTO track_daily_stats (track_id, day, plays)
       SELECT track_id, day, sum(plays)::int FROM (
         SELECT LEAST($2, floor(power(($2::int)::float8, random()))::int) AS track_id, (now() AT TIME ZONE 'utc')::date - d AS day,
                1 + floor(power(500, random()))::int AS plays
           FROM generate_series(0, $3 - 1) d, generate_series(1, $1) g) p
        GROUP BY 1, 2`,
      [S.playedTracksPerDay, S.tracks, S.playDays],
    ),
  );
  await timed('catalog daily likes and reposts (last 30 days)', () =>
    db.query(
      `INSERT INTO track_daily_stats (track_id, day, likes, reposts)
       SELECT track_id, (created_at AT TIME ZONE 'utc')::date, count(*) FILTER (WHERE kind = 'L'), count(*) FILTER (WHERE kind = 'R')
         FROM track_engagements WHERE created_at >= now() - interval '30 days' GROUP BY 1, 2
       ON CONFLICT (track_id, day) DO UPDATE SET likes = EXCLUDED.likes, reposts = EXCLUDED.reposts`,
    ),
  );
  await timed('catalog counters on tracks', async () => {
    await db.query(
      `UPDATE tracks t SET play_count = s.n FROM (SELECT track_id, sum(plays)::int AS n FROM track_daily_stats GROUP BY 1) s WHERE t.id = s.track_id`,
    );
    await db.query(
      `UPDATE tracks t SET like_count = s.l, repost_count = s.r
         FROM (SELECT track_id, count(*) FILTER (WHERE kind = 'L')::int AS l, count(*) FILTER (WHERE kind = 'R')::int AS r FROM track_engagements GROUP BY 1) s
        WHERE t.id = s.track_id`,
    );
    await db.query(
      `UPDATE user_summaries u SET track_count = s.n
         FROM (SELECT artist_id, count(*)::int AS n FROM tracks WHERE NOT is_private GROUP BY 1) s WHERE u.user_id = s.artist_id`,
    );
  });
  await db.query('ALTER TABLE tracks ENABLE TRIGGER USER');
  await db.query('ALTER TABLE user_summaries ENABLE TRIGGER USER');
  await timed('catalog platform counters', () =>
    db.query(`UPDATE platform_counters SET users = 0, artists = 0, listeners = 0, tracks = 0, plays = 0, completed_plays = 0, storage_bytes = 0;
      UPDATE platform_counters SET
        tracks = (SELECT count(*) FROM tracks WHERE deleted_at IS NULL),
        storage_bytes = (SELECT COALESCE(sum(original_size), 0) FROM tracks WHERE deleted_at IS NULL),
        plays = (SELECT COALESCE(sum(play_count), 0) FROM tracks),
        completed_plays = (SELECT COALESCE(sum(completed_play_count), 0) FROM tracks),
        users = (SELECT count(*) FROM user_summaries WHERE NOT is_deleted),
        artists = (SELECT count(*) FROM user_summaries WHERE NOT is_deleted AND role = 'ARTIST'),
        listeners = (SELECT count(*) FROM user_summaries WHERE NOT is_deleted AND role = 'LISTENER')
      WHERE slot = 0`),
  );
  await timed(`catalog indexes rebuilt (${indexes.length})`, async () => {
    for (const def of indexes) await db.query(def);
  });
  // The vocabulary of typo corrections is kept by triggers, which were off during the load.
  await timed('catalog search vocabulary', () =>
    db.query(`TRUNCATE search_words;
      INSERT INTO search_words (word)
        SELECT word FROM ts_stat('SELECT search_doc FROM tracks') WHERE msp_vocabulary_word(word)
        UNION SELECT word FROM ts_stat('SELECT search_doc FROM playlists') WHERE msp_vocabulary_word(word)
        UNION SELECT word FROM ts_stat('SELECT search_doc FROM user_summaries') WHERE msp_vocabulary_word(word)`),
  );
  await timed('catalog trending scores', () =>
    recomputeTrending(
      (() => {
        // One client, so the recompute's set_config and its statement share a transaction.
        const on = (target: pg.Pool | pg.PoolClient) => pgSqlExecutor(target);
        return {
          ...on(db),
          $transaction: async <R>(fn: (tx: ReturnType<typeof on>) => Promise<R>) => {
            const client = await db.connect();
            const tx = on(client);
            try {
              await client.query('BEGIN');
              const out = await fn(tx);
              await client.query('COMMIT');
              return out;
            } catch (err) {
              await client.query('ROLLBACK');
              throw err;
            } finally {
              client.release();
            }
          },
        };
      })() as never,
    ),
  );
  await timed('catalog analyze', () => db.query('VACUUM ANALYZE'));
}

async function seedSocial(db: pg.Pool) {
  const S = SIZES;
  const source = new URL(CATALOG_URL);
  const conn = `host=${source.hostname} port=${source.port || 5432} user=${decodeURIComponent(source.username || 'postgres')} dbname=${source.pathname.slice(1)}`;
  await db.query(`SET maintenance_work_mem = '512MB'`);
  await db.query('CREATE EXTENSION IF NOT EXISTS dblink');
  await db.query(`TRUNCATE user_summaries, follows, blocks, track_refs, playlist_refs, track_likes, track_reposts, playlist_likes,
                  playlist_reposts, comments, outbox_event, processed_event RESTART IDENTITY`);
  const indexes = await dropIndexes(db, ['user_summaries', 'follows', 'track_refs', 'playlist_refs', 'track_likes', 'track_reposts', 'playlist_likes']);
  const copy = (label: string, sql: string) => timed(label, () => db.query(sql.replaceAll('$CONN', `'${conn}'`)));
  await copy(
    'social users (from catalog)',
    `INSERT INTO user_summaries (user_id, username, display_name, tier, role, track_count, updated_at)
     SELECT * FROM dblink($CONN, 'SELECT user_id, username, display_name, tier, role, track_count, updated_at FROM user_summaries')
       AS u(user_id int, username text, display_name text, tier text, role text, track_count int, updated_at timestamptz)`,
  );
  await copy(
    'social track refs (from catalog)',
    `INSERT INTO track_refs (track_id, artist_id, title, track_slug, state, is_private, access, duration_seconds, genre, published_at,
                             created_at, like_count, repost_count)
     SELECT * FROM dblink($CONN, 'SELECT id, artist_id, title, track_slug, state::text, is_private, access::text, duration_seconds, genre,
                                         published_at, created_at, like_count, repost_count FROM tracks')
       AS t(track_id int, artist_id int, title text, track_slug text, state text, is_private boolean, access text, duration_seconds int,
            genre text, published_at timestamptz, created_at timestamptz, like_count int, repost_count int)`,
  );
  await copy(
    'social playlist refs (from catalog)',
    `INSERT INTO playlist_refs (playlist_id, owner_id, title, playlist_slug, is_private, created_at, posted_at)
     SELECT p.*, CASE WHEN p.is_private THEN NULL ELSE p.created_at END
       FROM dblink($CONN, 'SELECT id, owner_id, title, playlist_slug, is_private, created_at FROM playlists')
         AS p(playlist_id int, owner_id int, title text, playlist_slug text, is_private boolean, created_at timestamptz)`,
  );
  await copy(
    'social track likes and reposts (from catalog)',
    `WITH e AS (SELECT * FROM dblink($CONN, 'SELECT kind, user_id, track_id, created_at FROM track_engagements')
                  AS e(kind text, user_id int, track_id int, created_at timestamptz)),
          l AS (INSERT INTO track_likes (user_id, track_id, created_at) SELECT user_id, track_id, created_at FROM e WHERE kind = 'L')
     INSERT INTO track_reposts (user_id, track_id, created_at) SELECT user_id, track_id, created_at FROM e WHERE kind = 'R'`,
  );
  await timed(`social playlist likes (${S.playlistLikes})`, () =>
    db.query(
      `INSERT INTO playlist_likes (user_id, playlist_id, created_at)
       SELECT 1 + floor(random() * $2)::int, 1 + floor(random() * $3)::int, now() - random() * interval '365 days'
         FROM generate_series(1, $1) ON CONFLICT DO NOTHING`,
      [S.playlistLikes, S.users, S.playlists],
    ),
  );
  await timed(`social follows (${S.followsPerUser}/user, a fan of ${S.followedByBigFan}, artist 1 by all)`, async () => {
    await db.query(
      `INSERT INTO follows (follower_id, followee_id, created_at)
       SELECT u, 1 + floor(random() * $2)::int, now() - random() * interval '365 days'
         FROM generate_series(1, $1) u, generate_series(1, $3) k ON CONFLICT DO NOTHING`,
      [S.users, S.artists, S.followsPerUser],
    );
    await db.query(`INSERT INTO follows (follower_id, followee_id, created_at) SELECT $1, a, now() FROM generate_series(1, $2) a ON CONFLICT DO NOTHING`, [
      S.users,
      S.followedByBigFan,
    ]);
    await db.query(
      `INSERT INTO follows (follower_id, followee_id, created_at) SELECT u, 1, now() - random() * interval '365 days'
         FROM generate_series(2, $1) u ON CONFLICT DO NOTHING`,
      [S.users],
    );
  });
  await timed('social counters', async () => {
    await db.query(
      `UPDATE user_summaries u SET follower_count = s.n FROM (SELECT followee_id, count(*)::int n FROM follows GROUP BY 1) s WHERE u.user_id = s.followee_id`,
    );
    await db.query(
      `UPDATE user_summaries u SET following_count = s.n FROM (SELECT follower_id, count(*)::int n FROM follows GROUP BY 1) s WHERE u.user_id = s.follower_id`,
    );
    await db.query(
      `UPDATE playlist_refs p SET like_count = s.n FROM (SELECT playlist_id, count(*)::int n FROM playlist_likes GROUP BY 1) s WHERE p.playlist_id = s.playlist_id`,
    );
  });
  await timed(`social indexes rebuilt (${indexes.length})`, async () => {
    for (const def of indexes) await db.query(def);
  });
  await timed('social analyze', () => db.query('VACUUM ANALYZE'));
}

/**
 * Catalog's copies of what social owns and catalog's consumers copy from social's events in a
 * running fleet: the follows (`user_follows`) and the likes of playlists (`playlist_engagements`),
 * behind a viewer's isFollowing and isLiked on the pages catalog renders.
 */
export async function copySocialToCatalog(catalog: pg.Pool) {
  const source = new URL(SOCIAL_URL);
  const conn = `host=${source.hostname} port=${source.port || 5432} user=${decodeURIComponent(source.username || 'postgres')} dbname=${source.pathname.slice(1)}`;
  await catalog.query('CREATE EXTENSION IF NOT EXISTS dblink');
  await catalog.query('TRUNCATE user_follows, playlist_engagements');
  await catalog.query(
    `INSERT INTO user_follows (follower_id, followee_id) SELECT * FROM dblink('${conn}', 'SELECT follower_id, followee_id FROM follows') AS f(a int, b int)`,
  );
  await catalog.query(
    `INSERT INTO playlist_engagements (kind, user_id, playlist_id, created_at)
     SELECT 'L', l.* FROM dblink('${conn}', 'SELECT user_id, playlist_id, created_at FROM playlist_likes') AS l(u int, p int, at timestamptz)`,
  );
  await catalog.query('VACUUM ANALYZE user_follows, playlist_engagements');
}

async function syncFollowerCounts(catalog: pg.Pool, social: pg.Pool) {
  const { rows } = await social.query<{ user_id: number; follower_count: number }>(
    'SELECT user_id, follower_count FROM user_summaries WHERE follower_count > 0',
  );
  await catalog.query(`UPDATE user_summaries u SET follower_count = s.n FROM unnest($1::int[], $2::int[]) AS s(id, n) WHERE u.user_id = s.id`, [
    rows.map((r) => r.user_id),
    rows.map((r) => r.follower_count),
  ]);
}

async function main() {
  console.log(`seeding at scale ${SCALE}:`, SIZES);
  const started = Date.now();
  for (const [url, service] of [
    [CATALOG_URL, 'catalog'],
    [SOCIAL_URL, 'social'],
  ] as const) {
    // The seed's own databases start from scratch (an interrupted load leaves indexes dropped).
    if (!process.env[`${service.toUpperCase()}_DATABASE_URL`]) await dropDatabase(url);
    await ensureDatabase(url);
    await migrate(url, path.join(root, `services/${service}/prisma/migrations`));
  }
  const catalog = createPgPool(CATALOG_URL, 2);
  const social = createPgPool(SOCIAL_URL, 2);
  try {
    await seedCatalog(catalog);
    await seedSocial(social);
    await timed('catalog follower counts (from social)', () => syncFollowerCounts(catalog, social));
    await timed("catalog's copies of follows and playlist likes (from social)", () => copySocialToCatalog(catalog));
    const [{ rows: c }, { rows: s }] = await Promise.all([
      catalog.query(`SELECT (SELECT count(*) FROM user_summaries) users, (SELECT count(*) FROM tracks) tracks,
                            (SELECT count(*) FROM playlists) playlists, (SELECT count(*) FROM track_engagements WHERE kind = 'L') likes,
                            (SELECT count(*) FROM user_follows) follows, (SELECT count(*) FROM playlist_engagements) playlist_likes,
                            (SELECT sum(plays) FROM track_daily_stats) plays, (SELECT count(*) FROM tracks WHERE trending_score > 0) trending`),
      social.query(
        `SELECT (SELECT count(*) FROM follows) follows, (SELECT count(*) FROM follows WHERE follower_id = $1) big_fan_follows,
                           (SELECT count(*) FROM follows WHERE followee_id = 1) artist1_followers`,
        [SIZES.users],
      ),
    ]);
    console.log('catalog:', c[0], 'social:', s[0]);
    console.log(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await Promise.all([catalog.end(), social.end()]);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await main();
