-- Account deletion (docs/account-control.md): the deleted user's jobs are found by artist.
CREATE INDEX "jobs_artist_id_idx" ON "jobs" ("artist_id");
