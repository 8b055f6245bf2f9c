/**
 * `node --import tsx scripts/backfill-social-copies.ts [follows|playlist-engagements]`: copies
 * social's pairs into catalog's copies for those older than social's event stream still holds
 * (7 days), both copies unless one is named:
 *
 *   follows               social's `follows` into `user_follows` (what the viewer's isFollowing is
 *                         read from); run while the `catalog--follows-copy` consumer runs;
 *   playlist-engagements  social's likes and reposts of playlists into `playlist_engagements` (a
 *                         viewer's isLiked and isReposted of playlists); run while the
 *                         `catalog--social-sync` consumer runs.
 *
 * Run once after deploying a catalog that starts a copy; safe to run again (keyset batches of
 * BATCH pairs, 10,000 by default, then a reconcile step; services/catalog/README.md, "The viewer's
 * flags on tracks").
 *
 *   SOCIAL_DATABASE_URL=postgres://…/social CATALOG_DATABASE_URL=postgres://…/catalog \
 *     node --import tsx scripts/backfill-social-copies.ts [follows|playlist-engagements]
 */
import { createPgPool } from '../packages/db/src/index.ts';
import { backfillFollows, backfillPlaylistEngagements, type CopyBackfillResult } from '../services/catalog/src/modules/social-sync/copy-backfill.ts';

const COPIES = ['follows', 'playlist-engagements'] as const;
type Copy = (typeof COPIES)[number];

const only = process.argv[2];
if (process.argv.length > 3 || (only !== undefined && !COPIES.includes(only as Copy))) {
  console.error(`usage: backfill-social-copies.ts [${COPIES.join('|')}] (default: both)`);
  process.exit(2);
}
const socialUrl = process.env.SOCIAL_DATABASE_URL;
const catalogUrl = process.env.CATALOG_DATABASE_URL;
if (!socialUrl || !catalogUrl) {
  console.error('SOCIAL_DATABASE_URL and CATALOG_DATABASE_URL are required');
  process.exit(2);
}
const batch = Number(process.env.BATCH ?? 10_000);
const report = (name: string, r: CopyBackfillResult) => `${name}: ${r.read} read, ${r.inserted} copied, ${r.removed} removed (no longer in social)`;

const social = createPgPool(socialUrl, 1);
const catalog = createPgPool(catalogUrl, 1);
try {
  for (const copy of only ? [only as Copy] : COPIES) {
    const started = Date.now();
    if (copy === 'follows') {
      console.log(`${report('follows', await backfillFollows(social, catalog, batch))} in ${Date.now() - started} ms`);
    } else {
      const { likes, reposts } = await backfillPlaylistEngagements(social, catalog, batch);
      console.log(report('playlist likes', likes));
      console.log(`${report('playlist reposts', reposts)} in ${Date.now() - started} ms`);
    }
  }
} finally {
  await Promise.all([social.end(), catalog.end()]);
}
