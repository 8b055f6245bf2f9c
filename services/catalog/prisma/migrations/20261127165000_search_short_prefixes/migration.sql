-- DSC-3 one- and two-letter prefixes (not in schema.prisma, like the search vocabulary): a query of
-- one short prefix ("q", "lo") matches a word of a large part of the catalogue or of almost none of
-- it, and either way finding its most popular matches meant walking a large part of an index (a
-- letter nothing starts walked all of it). Their candidates are kept here instead, per kind: the
-- SEARCH_CANDIDATES most popular listed matches of every such prefix, refreshed by catalog every few
-- minutes (modules/discovery/short-prefixes.ts). Items created since a refresh (ids above
-- `max_id`) are searched live; every kept candidate is checked again at read time (listing rules,
-- blocks and the prefix itself), so only a change of popularity or a rename that adds a word waits
-- for the next refresh.
CREATE TABLE "search_short_prefixes" (
  "kind" TEXT NOT NULL,
  "prefix" TEXT COLLATE "C" NOT NULL,
  "rank" INTEGER NOT NULL,
  "id" INTEGER NOT NULL,
  CONSTRAINT "search_short_prefixes_pkey" PRIMARY KEY ("kind", "prefix", "rank")
);

-- One row per kind: when its candidates were computed, the highest id they saw, and the prefixes
-- computed (a prefix not listed is searched live).
CREATE TABLE "search_short_prefix_refreshes" (
  "kind" TEXT NOT NULL,
  "refreshed_at" TIMESTAMPTZ NOT NULL,
  "max_id" INTEGER NOT NULL,
  "prefixes" TEXT[] NOT NULL,
  CONSTRAINT "search_short_prefix_refreshes_pkey" PRIMARY KEY ("kind")
);
