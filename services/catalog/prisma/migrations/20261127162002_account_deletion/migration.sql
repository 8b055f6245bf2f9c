-- Account deletion (docs/account-control.md): the catalog--account-deletion consumer removes a
-- deleted user's rows in batches of a few hundred. These indexes let each batch find its rows
-- without scanning the table; not in schema.prisma where the tables are hand-written.
-- Plays on the user's tracks (play_events.artist_id) and the user's place in others' top listeners.
CREATE INDEX "play_events_artist_idx" ON "play_events" ("artist_id", "played_at");
CREATE INDEX "artist_listener_days_listener_idx" ON "artist_listener_days" ("listener_id");
-- Others' listening history of the user's tracks.
CREATE INDEX "listening_history_track_id_idx" ON "listening_history" ("track_id");
-- The user's follows as followee (the primary key starts with the follower).
CREATE INDEX "user_follows_followee_id_idx" ON "user_follows" ("followee_id");
-- A deleted listener's downloads of others' tracks stay counted, anonymised (user_id NULL).
ALTER TABLE "track_downloads" ALTER COLUMN "user_id" DROP NOT NULL;
