-- CreateTable
CREATE TABLE "platform_counters" (
    "slot" INTEGER NOT NULL,
    "users" BIGINT NOT NULL DEFAULT 0,
    "artists" BIGINT NOT NULL DEFAULT 0,
    "listeners" BIGINT NOT NULL DEFAULT 0,
    "tracks" BIGINT NOT NULL DEFAULT 0,
    "plays" BIGINT NOT NULL DEFAULT 0,
    "completed_plays" BIGINT NOT NULL DEFAULT 0,
    "storage_bytes" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "platform_counters_pkey" PRIMARY KEY ("slot")
);

-- CreateTable
CREATE TABLE "user_ban_states" (
    "user_id" INTEGER NOT NULL,
    "is_banned" BOOLEAN NOT NULL,
    "reason" TEXT,
    "changed_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "user_ban_states_pkey" PRIMARY KEY ("user_id")
);

-- CreateTable
CREATE TABLE "admin_audit" (
    "id" BIGSERIAL NOT NULL,
    "admin_id" INTEGER NOT NULL,
    "admin_name" TEXT,
    "action" TEXT NOT NULL,
    "target_type" TEXT NOT NULL,
    "target_id" TEXT NOT NULL,
    "reason" TEXT,
    "details" JSONB,
    "request_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "admin_audit_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "admin_audit_created_at_idx" ON "admin_audit"("created_at" DESC);

-- CreateIndex
CREATE INDEX "admin_audit_admin_id_created_at_idx" ON "admin_audit"("admin_id", "created_at" DESC);


-- Hand-written below: MOD-12 counters kept by triggers, so the metrics never scan a big table.
CREATE INDEX "user_ban_states_banned_idx" ON "user_ban_states"("user_id") WHERE "is_banned";

INSERT INTO "platform_counters" ("slot") SELECT generate_series(0, 15);

-- Tracks: a track counts (and its original's bytes count as stored) until it is deleted; plays
-- and completed plays count for every track ever, deleted or not (they happened).
CREATE FUNCTION "platform_counters_tracks"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  d_tracks bigint := 0;
  d_plays bigint := 0;
  d_completed bigint := 0;
  d_storage bigint := 0;
  row_id int;
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    row_id := OLD.id;
    IF OLD.deleted_at IS NULL THEN
      d_tracks := d_tracks - 1;
      d_storage := d_storage - COALESCE(OLD.original_size, 0);
    END IF;
    d_plays := d_plays - OLD.play_count;
    d_completed := d_completed - OLD.completed_play_count;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    row_id := NEW.id;
    IF NEW.deleted_at IS NULL THEN
      d_tracks := d_tracks + 1;
      d_storage := d_storage + COALESCE(NEW.original_size, 0);
    END IF;
    d_plays := d_plays + NEW.play_count;
    d_completed := d_completed + NEW.completed_play_count;
  END IF;
  IF d_tracks <> 0 OR d_plays <> 0 OR d_completed <> 0 OR d_storage <> 0 THEN
    UPDATE platform_counters
       SET tracks = tracks + d_tracks, plays = plays + d_plays,
           completed_plays = completed_plays + d_completed, storage_bytes = storage_bytes + d_storage
     WHERE slot = row_id % 16;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "tracks_platform_counters" AFTER INSERT OR UPDATE OR DELETE ON "tracks"
  FOR EACH ROW EXECUTE FUNCTION "platform_counters_tracks"();

-- Users of the projection: every user not deleted; artists and listeners by role.
CREATE FUNCTION "platform_counters_users"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  d_users bigint := 0;
  d_artists bigint := 0;
  d_listeners bigint := 0;
  row_id int;
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    row_id := OLD.user_id;
    IF NOT OLD.is_deleted THEN
      d_users := d_users - 1;
      IF OLD.role = 'ARTIST' THEN d_artists := d_artists - 1; END IF;
      IF OLD.role = 'LISTENER' THEN d_listeners := d_listeners - 1; END IF;
    END IF;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    row_id := NEW.user_id;
    IF NOT NEW.is_deleted THEN
      d_users := d_users + 1;
      IF NEW.role = 'ARTIST' THEN d_artists := d_artists + 1; END IF;
      IF NEW.role = 'LISTENER' THEN d_listeners := d_listeners + 1; END IF;
    END IF;
  END IF;
  IF d_users <> 0 OR d_artists <> 0 OR d_listeners <> 0 THEN
    UPDATE platform_counters
       SET users = users + d_users, artists = artists + d_artists, listeners = listeners + d_listeners
     WHERE slot = row_id % 16;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "user_summaries_platform_counters" AFTER INSERT OR UPDATE OR DELETE ON "user_summaries"
  FOR EACH ROW EXECUTE FUNCTION "platform_counters_users"();

-- The rows that exist now (one scan, at migration time only).
UPDATE "platform_counters" SET
  "tracks" = (SELECT count(*) FROM "tracks" WHERE "deleted_at" IS NULL),
  "storage_bytes" = (SELECT COALESCE(sum("original_size"), 0) FROM "tracks" WHERE "deleted_at" IS NULL),
  "plays" = (SELECT COALESCE(sum("play_count"), 0) FROM "tracks"),
  "completed_plays" = (SELECT COALESCE(sum("completed_play_count"), 0) FROM "tracks"),
  "users" = (SELECT count(*) FROM "user_summaries" WHERE NOT "is_deleted"),
  "artists" = (SELECT count(*) FROM "user_summaries" WHERE NOT "is_deleted" AND "role" = 'ARTIST'),
  "listeners" = (SELECT count(*) FROM "user_summaries" WHERE NOT "is_deleted" AND "role" = 'LISTENER')
WHERE "slot" = 0;
