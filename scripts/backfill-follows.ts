/**
 * `node --import tsx scripts/backfill-follows.ts`: copies social's follows into catalog's copy
 * (`user_follows`, what the viewer's isFollowing is read from) for follows older than social's event
 * stream still holds (7 days). Run once after deploying a catalog that starts the copy, while the
 * `catalog--follows-copy` consumer runs; safe to run again (services/catalog/README.md, "The
 * viewer's flags on tracks").
 *
 *   SOCIAL_DATABASE_URL=postgres://…/social CATALOG_DATABASE_URL=postgres://…/catalog \
 *     node --import tsx scripts/backfill-follows.ts
 */
import { createPgPool } from '../packages/db/src/index.ts';
import { backfillFollows } from '../services/catalog/src/modules/social-sync/copy-backfill.ts';

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
  const result = await backfillFollows(social, catalog, Number(process.env.BATCH ?? 10_000));
  console.log(`follows: ${result.read} read, ${result.inserted} copied, ${result.removed} removed (no longer in social) in ${Date.now() - started} ms`);
} finally {
  await Promise.all([social.end(), catalog.end()]);
}
