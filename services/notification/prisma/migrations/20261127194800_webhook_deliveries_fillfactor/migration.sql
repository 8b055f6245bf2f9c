-- Room in each page for the dispatcher's claim (lease and attempt count, no indexed column) to be a
-- heap-only update: no new entry in the table's seven indexes per claim (docs/developer-platform.md
-- "Webhook throughput"). Applies to pages written from now on.
ALTER TABLE "webhook_deliveries" SET (fillfactor = 70);
