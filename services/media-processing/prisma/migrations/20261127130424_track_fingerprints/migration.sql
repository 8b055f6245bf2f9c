-- CreateTable
CREATE TABLE "track_fingerprint" (
    "track_id" INTEGER NOT NULL,
    "upload_id" UUID NOT NULL,
    "attempt" INTEGER NOT NULL,
    "items" INTEGER NOT NULL,
    "fingerprint" BYTEA NOT NULL,
    "index_hashes" INTEGER[],
    "index_positions" INTEGER[],
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "track_fingerprint_pkey" PRIMARY KEY ("track_id")
);

-- CreateTable
CREATE TABLE "fingerprint_hash" (
    "hash" INTEGER NOT NULL,
    "track_id" INTEGER NOT NULL,
    "pos" INTEGER NOT NULL,

    CONSTRAINT "fingerprint_hash_pkey" PRIMARY KEY ("hash","track_id","pos")
);

-- CreateTable
CREATE TABLE "fingerprint_match" (
    "upload_id" UUID NOT NULL,
    "attempt" INTEGER NOT NULL,
    "track_id" INTEGER NOT NULL,
    "matched_track_id" INTEGER NOT NULL,
    "track_start_seconds" DOUBLE PRECISION NOT NULL,
    "track_end_seconds" DOUBLE PRECISION NOT NULL,
    "matched_start_seconds" DOUBLE PRECISION NOT NULL,
    "matched_end_seconds" DOUBLE PRECISION NOT NULL,
    "coverage" DOUBLE PRECISION NOT NULL,
    "score" DOUBLE PRECISION NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "fingerprint_match_pkey" PRIMARY KEY ("upload_id","attempt")
);

-- CreateIndex
CREATE INDEX "fingerprint_match_track_id_idx" ON "fingerprint_match"("track_id");

-- CreateIndex
CREATE INDEX "fingerprint_match_matched_track_id_idx" ON "fingerprint_match"("matched_track_id");

