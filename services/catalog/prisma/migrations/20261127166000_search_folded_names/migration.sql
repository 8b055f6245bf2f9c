-- DSC-3 ranking (not in schema.prisma, like the other search columns): the folded title of a track
-- and the folded username and display name of a user, stored, so that ranking a query's candidates
-- (the whole title or name equal to the query, and its trigram similarity) no longer folds every
-- candidate's text again (unaccent per row was most of a search's cost in PostgreSQL). Rewrites
-- `tracks` and `user_summaries` once (about a minute per million tracks).
ALTER TABLE "tracks" ADD COLUMN "search_title" text GENERATED ALWAYS AS (msp_fold("title")) STORED;
ALTER TABLE "user_summaries"
  ADD COLUMN "search_username" text GENERATED ALWAYS AS (msp_fold("username")) STORED,
  ADD COLUMN "search_display_name" text GENERATED ALWAYS AS (msp_fold("display_name")) STORED;
