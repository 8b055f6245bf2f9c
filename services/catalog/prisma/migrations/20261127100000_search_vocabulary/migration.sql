-- DSC-3 typo tolerance through a vocabulary (not in schema.prisma: functions and triggers).
-- `search_words` holds every word of the search documents of tracks, playlists and users, once;
-- `search_word_variants` every such word under each of its one-letter deletions (symmetric-delete
-- spelling correction, as SymSpell does). A query word W and a vocabulary word V are one edit apart
-- (a letter wrong, missing, extra, or two neighbours swapped) when W equals V or a deletion of V, or
-- a deletion of W equals V or a deletion of V: a few primary-key probes per query word, whatever the
-- size of the catalogue, instead of comparing the query with every title. The words' byte order
-- (COLLATE "C") also lists a prefix's completions as one range of the primary key.
-- Words only ever get added (an unused one costs a few rows and finds nothing); digits-only, short
-- and punctuated tokens are left out (they are never corrected).
CREATE TABLE "search_words" (
  "word" TEXT COLLATE "C" NOT NULL,
  CONSTRAINT "search_words_pkey" PRIMARY KEY ("word")
);
CREATE TABLE "search_word_variants" (
  "variant" TEXT COLLATE "C" NOT NULL,
  "word" TEXT COLLATE "C" NOT NULL,
  CONSTRAINT "search_word_variants_pkey" PRIMARY KEY ("variant", "word")
);

CREATE OR REPLACE FUNCTION msp_vocabulary_word(w text) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT length(w) BETWEEN 3 AND 40 AND w !~ '^[0-9]+$' AND w !~ '[[:punct:][:space:]]' $$;

-- The word's one-letter deletions.
CREATE OR REPLACE FUNCTION msp_word_deletions(w text) RETURNS SETOF text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT DISTINCT overlay(w PLACING '' FROM i FOR 1) FROM generate_series(1, length(w)) i $$;

CREATE OR REPLACE FUNCTION msp_add_vocabulary(words text[]) RETURNS void LANGUAGE sql AS $$
  WITH fresh AS (
    INSERT INTO search_words (word) SELECT DISTINCT w FROM unnest(words) w WHERE msp_vocabulary_word(w)
    ON CONFLICT DO NOTHING RETURNING word)
  INSERT INTO search_word_variants (variant, word) SELECT d, f.word FROM fresh f, msp_word_deletions(f.word) d
  ON CONFLICT DO NOTHING
$$;

CREATE OR REPLACE FUNCTION msp_add_search_words() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM msp_add_vocabulary(tsvector_to_array(NEW.search_doc));
  RETURN NULL;
END $$;

CREATE TRIGGER "tracks_search_words" AFTER INSERT OR UPDATE OF "title", "tags", "genre" ON "tracks"
  FOR EACH ROW EXECUTE FUNCTION msp_add_search_words();
CREATE TRIGGER "playlists_search_words" AFTER INSERT OR UPDATE OF "title" ON "playlists"
  FOR EACH ROW EXECUTE FUNCTION msp_add_search_words();
CREATE TRIGGER "user_summaries_search_words" AFTER INSERT OR UPDATE OF "username", "display_name" ON "user_summaries"
  FOR EACH ROW EXECUTE FUNCTION msp_add_search_words();

SELECT msp_add_vocabulary(ARRAY(
  SELECT word FROM ts_stat('SELECT search_doc FROM tracks')
  UNION SELECT word FROM ts_stat('SELECT search_doc FROM playlists')
  UNION SELECT word FROM ts_stat('SELECT search_doc FROM user_summaries')));

-- Finer statistics of the documents' words: the planner picks between the full-text index (a rare
-- word: read its few matches, then sort) and the popularity index (a common word: walk the most
-- popular items until enough match) from these frequencies.
ALTER TABLE "tracks" ALTER COLUMN "search_doc" SET STATISTICS 1000;
ALTER TABLE "playlists" ALTER COLUMN "search_doc" SET STATISTICS 1000;
ALTER TABLE "user_summaries" ALTER COLUMN "search_doc" SET STATISTICS 1000;
ANALYZE "tracks" ("search_doc");
ANALYZE "playlists" ("search_doc");
ANALYZE "user_summaries" ("search_doc");
ANALYZE "search_words";
ANALYZE "search_word_variants";
