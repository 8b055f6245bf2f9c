-- CreateIndex
CREATE INDEX "reports_target_type_created_at_id_idx" ON "reports"("target_type", "created_at" DESC, "id" DESC);

