-- DSC-3 (not in schema.prisma, like the other search objects): the search documents' GIN indexes
-- keep a short pending list. An update of a popularity column (`play_count`, `like_count`,
-- `follower_count`: in the covering popularity indexes, so never a HOT update) inserts the row's
-- words into the GIN index's pending list, and every search through that index reads the whole
-- list: up to the default 4 MB, flushed only by (auto)vacuum or when full. At 100,000 users a
-- pending list of 23,000 entries (2.2 MB, after follower counts changed) made every user lookup
-- of the GIN index cost 13-18 ms instead of 1 ms. At 128 kB the writer that fills the list
-- merges it (a batch of a few hundred rows) and a search reads at most that much.
ALTER INDEX "tracks_search_doc_idx" SET (gin_pending_list_limit = 128);
ALTER INDEX "playlists_search_doc_idx" SET (gin_pending_list_limit = 128);
ALTER INDEX "user_summaries_search_doc_idx" SET (gin_pending_list_limit = 128);
SELECT gin_clean_pending_list('"tracks_search_doc_idx"'::regclass);
SELECT gin_clean_pending_list('"playlists_search_doc_idx"'::regclass);
SELECT gin_clean_pending_list('"user_summaries_search_doc_idx"'::regclass);
