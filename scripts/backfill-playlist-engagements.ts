/**
 * `node --import tsx scripts/backfill-playlist-engagements.ts`: copies social's likes and reposts of
 * playlists into catalog's copy (`playlist_engagements`, what a viewer's isLiked and isReposted of
 * playlists are read from) for those older than social's event stream still holds (7 days). Run once
 * after deploying a catalog that starts the copy, while its `catalog--social-sync` consumer runs;
 * safe to run again (services/catalog/README.md, "The viewer's flags on tracks").
 *
 *   SOCIAL_DATABASE_URL=postgres://…/social CATALOG_DATABASE_URL=postgres://…/catalog \
 *     node --import tsx scripts/backfill-playlist-engagements.ts
 */
import { createPgPool } from '../packages/db/src/index.ts';
import { backfillPlaylistEngagements } from '../services/catalog/src/modules/social-sync/copy-backfill.ts';

const socialUrl = process.env.SOCIAL_DATABASE_URL;
const catalogUrl = process.env.CATALOG_DATABASE_URL;
if (!socialUrl || !catalogUrl) {
  console.error('SOCIAL_DATABASE_URL and CATALOG_DATABASE_URL are required');
  process.exit(2);
}
const social = createPgPool(socialUrl, 1);
const catalog = createPgPool(catalogUrl, 1);
try {
  const started = Date.now();
  const { likes, reposts } = await backfillPlaylistEngagements(social, catalog, Number(process.env.BATCH ?? 10_000));
  for (const [name, r] of [
    ['likes', likes],
    ['reposts', reposts],
  ] as const) {
    console.log(`playlist ${name}: ${r.read} read, ${r.inserted} copied, ${r.removed} removed (no longer in social)`);
  }
  console.log(`in ${Date.now() - started} ms`);
} finally {
  await Promise.all([social.end(), catalog.end()]);
}
